/**
 * docs/your-site.md, followed literally: every code block of the guide is applied to a copy of the repository as its
 * header says (`file=` the file; `create`, `append`, or `after=`/`before=` the one line it goes next to), then the
 * copy is type-checked, built and served, and its new pages are fetched as documents and as page data, the sitemap
 * read, and one client navigation made in Chromium. A guide that no longer applies, compiles or serves fails here.
 */
import t, { type Test } from 'tap'
import { spawn, execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { chromium } from 'playwright-core'
import { readStartCommand } from '../../src/build/start-command.ts'
import { pageCacheControl } from '../../src/pages/cache-control.ts'
import { chromiumArgs, chromiumPath } from '../e2e/harness.ts'
import {
  applyStep,
  copyRepository as copyTheRepository,
  guidePath,
  readGuideSteps,
  removeCopy,
} from '../helpers/guide-steps.ts'

// Copying, type-checking, building and serving a whole site: minutes on a busy 2-core machine.
t.setTimeout(900_000)

const run = promisify(execFile)

/** The repository copied to a temporary folder, removed on teardown. */
function copyRepository(t: Test): string {
  const root = copyTheRepository('courier-your-site-')
  t.teardown(() => removeCopy(root))
  return root
}

interface Served {
  origin: string
  deploymentId: string
}

/** `npm start`'s process on the copy's build, on a free port; stopped on teardown. */
async function serve(t: Test, root: string): Promise<Served> {
  const imageCacheDir = mkdtempSync(path.join(tmpdir(), 'courier-your-site-images-'))
  t.teardown(() => rmSync(imageCacheDir, { recursive: true, force: true }))
  const { nodeArgs } = await readStartCommand(root)
  // tap puts its loader into every child's NODE_OPTIONS: `env -u` clears it for the server.
  const child = spawn(
    'env',
    ['-u', 'NODE_OPTIONS', process.execPath, ...nodeArgs, path.join(root, 'dist', 'node', 'server.js')],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        IMAGE_CACHE_DIR: imageCacheDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  t.teardown(() => {
    child.kill('SIGTERM')
  })
  let output = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 60_000)
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`
      const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line)
      if (listening) {
        clearTimeout(timer)
        resolve(Number(listening[1]))
      }
    })
  })
  const { deploymentId } = JSON.parse(readFileSync(path.join(root, 'dist', 'deployment.json'), 'utf8')) as {
    deploymentId: string
  }
  return { origin: `http://127.0.0.1:${port}`, deploymentId }
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
}

t.test('the guide applies to the repository as written, type-checks and builds', async (t) => {
  const steps = readGuideSteps(readFileSync(guidePath, 'utf8'))
  t.ok(steps.length >= 10, `the guide has its steps (${steps.length})`)
  const courierFiles = steps.filter(
    (step) => !/^(site|content)\//.test(step.file) && !step.file.startsWith('client/public/'),
  )
  t.same(
    courierFiles.map((step) => step.file),
    [],
    "every step edits the site's own files (site/, content/, its public images), none of Courier's",
  )
  const root = copyRepository(t)
  for (const step of steps) await applyStep(root, step)

  // Without tap's loader, which it puts into every child's NODE_OPTIONS: `env -u` clears it, as in a terminal.
  const npm = (script: string) =>
    run('env', ['-u', 'NODE_OPTIONS', 'npm', 'run', script], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
  await npm('typecheck')
  t.pass("npm run typecheck passes on the guide's code")
  await npm('build')
  const { origin, deploymentId } = await serve(t, root)
  const data = (pagePath: string) => `${origin}/_next/data/${deploymentId}${pagePath}.json`
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  /** A browser form's POST to `pagePath`, its redirect not followed. */
  const postForm = (pagePath: string, body: string) =>
    fetch(`${origin}${pagePath}`, { method: 'POST', headers: form, body, redirect: 'manual' })

  await t.test('a static page: its document, with a nonce on its scripts, and its data', async (t) => {
    const response = await fetch(`${origin}/about`)
    t.equal(response.status, 200)
    const html = await response.text()
    t.match(html, '<title>About us · Courier</title>')
    t.match(html, '<h1>About us</h1>')
    const nonce = /'nonce-([^']+)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1]
    t.ok(nonce, 'the CSP names a nonce')
    t.match(html, `nonce="${nonce}"`, 'and the scripts carry it')
    const pageData = await fetch(data('/about'))
    t.equal(pageData.status, 200)
    t.equal(
      await pageData.text(),
      '{"pageProps":{},"kind":"static","head":{"title":"About us · Courier","description":"Who runs this site."}}',
    )
    t.match(pageData.headers.get('etag'), /^"/, 'kept: a strong ETag')
  })

  await t.test('a page with a route parameter: its loader, its image, its not-found answer', async (t) => {
    const response = await fetch(`${origin}/team/ada`)
    t.equal(response.status, 200)
    const html = await response.text()
    t.match(html, '<title>Ada Lovelace · Courier</title>')
    t.match(html, 'Wrote the first program')
    const imageUrl = /<img[^>]* src="([^"]+)"/.exec(html)?.[1]
    t.match(
      imageUrl,
      /^\/_next\/image\?url=%2Fimages%2Fteam\.jpg&amp;w=\d+$/,
      'the image of ones own goes through the optimizer',
    )
    const image = await fetch(`${origin}${unescapeAttribute(imageUrl!)}`, { headers: { accept: 'image/webp,*/*' } })
    t.equal(image.status, 200)
    t.equal(image.headers.get('content-type'), 'image/webp')
    t.ok((await image.arrayBuffer()).byteLength > 1000, 'with its bytes')

    const pageData = await fetch(data('/team/grace'))
    t.equal(pageData.status, 200)
    t.match(await pageData.json(), {
      pageProps: { name: 'Grace Hopper', others: [{ slug: 'ada', name: 'Ada Lovelace' }] },
      kind: 'static',
    })

    const missing = await fetch(`${origin}/team/nobody`)
    t.equal(missing.status, 404, 'an unknown member is the 404 page')
    t.match(missing.headers.get('content-type'), /^text\/html/)
    const missingData = await fetch(data('/team/nobody'))
    t.equal(missingData.status, 404)
    t.equal(await missingData.text(), '{"notFound":true}')
  })

  await t.test('the new page is in the navigation of every page', async (t) => {
    for (const pagePath of ['/', '/team/ada']) {
      const html = await (await fetch(`${origin}${pagePath}`)).text()
      const navigation = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''
      t.match(navigation, /<a [^>]*href="\/about"[^>]*>About<\/a>/, pagePath)
    }
  })

  await t.test('a guide of ones own: listed and served from its Markdown', async (t) => {
    const guide = await fetch(`${origin}/guides/our-boat`)
    t.equal(guide.status, 200)
    const html = await guide.text()
    t.match(html, '<h1>Our boat</h1>')
    t.match(html, 'A ten-metre sloop')
    t.match(await (await fetch(`${origin}/guides`)).text(), 'href="/guides/our-boat"', 'listed on /guides')
    const img = /<img [^>]*alt="Our sloop[^>]*>/.exec(html)?.[0] ?? ''
    t.match(img, /width="1200" height="800"/, 'its image of the content, with the size read from the file')
    t.match(img, /srcSet="\/_next\/image\?url=%2Fcontent%2Fimages%2Four-boat\.jpg&amp;w=/, 'through the optimizer')
    const image = await fetch(`${origin}/content/images/our-boat.jpg`)
    t.equal(image.status, 200)
    t.equal(image.headers.get('content-type'), 'image/jpeg')
  })

  await t.test('a dynamic page: loaded per request, with its query, never cached', async (t) => {
    const response = await fetch(`${origin}/clock`)
    t.equal(response.status, 200)
    t.match(await response.text(), 'data-testid="server-time"')
    const pageData = await fetch(`${data('/clock')}?zone=UTC`)
    t.equal(pageData.status, 200)
    t.equal(pageData.headers.get('cache-control'), pageCacheControl.dynamic)
    t.match(await pageData.json(), { pageProps: { serverTime: String, zone: 'UTC' }, kind: 'dynamic' })
  })

  await t.test('a redirect: 308 for the document, the redirect as data for the router', async (t) => {
    const response = await fetch(`${origin}/people/grace`, { redirect: 'manual' })
    t.equal(response.status, 308)
    t.equal(response.headers.get('location'), '/team/grace')
    const pageData = await fetch(data('/people/grace'))
    t.equal(pageData.status, 200)
    t.equal(await pageData.text(), '{"redirect":{"destination":"/team/grace","permanent":true}}')
  })

  await t.test('the sitemap lists the new pages, each member once', async (t) => {
    const index = await (await fetch(`${origin}/sitemap.xml`)).text()
    const files = [...index.matchAll(/<loc>http:\/\/localhost:3000(\/sitemap-\d+\.xml)<\/loc>/g)].map(
      (match) => match[1]!,
    )
    t.ok(files.length > 0, 'the index names its sitemaps')
    const sitemap = (await Promise.all(files.map(async (file) => (await fetch(`${origin}${file}`)).text()))).join('\n')
    for (const pagePath of ['/about', '/team/ada', '/team/grace', '/clock', '/guides/our-boat'])
      t.match(sitemap, `<loc>http://localhost:3000${pagePath}</loc>`, pagePath)
    t.notMatch(sitemap, '/team/nobody')
    t.notMatch(sitemap, '/crew', 'a per-user page stays out')
  })

  await t.test('a route of its own: JSON, its 405', async (t) => {
    const response = await fetch(`${origin}/api/team`)
    t.equal(response.status, 200)
    t.same(await response.json(), [
      { slug: 'ada', name: 'Ada Lovelace' },
      { slug: 'grace', name: 'Grace Hopper' },
    ])
    const put = await fetch(`${origin}/api/team`, { method: 'PUT' })
    t.equal(put.status, 405)
    t.equal(put.headers.get('allow'), 'GET, HEAD')
  })

  await t.test(
    'a form: refused with its errors (422), kept and redirected (303), refused from another site',
    async (t) => {
      const refused = await postForm('/contact', 'email=nope&text=')
      t.equal(refused.status, 422)
      const html = await refused.text()
      t.match(html, 'An email address has an @.')
      t.match(html, 'Say something.')
      t.match(html, 'value="nope"', 'the value sent is kept')
      const sent = await postForm('/contact', 'email=ada%40example.com&text=Hello')
      t.equal(sent.status, 303)
      t.equal(sent.headers.get('location'), '/contact?sent=1')
      t.match(await (await fetch(`${origin}/contact?sent=1`)).text(), 'Thank you')
      const crossSite = await fetch(`${origin}/contact`, {
        method: 'POST',
        headers: { ...form, origin: 'https://attacker.example' },
        body: 'email=m%40x.y&text=spam',
      })
      t.equal(crossSite.status, 403)
    },
  )

  await t.test(
    "a signed-in page: a redirect to sign-in without a session, the visitor's own page with one",
    async (t) => {
      const refused = await fetch(`${origin}/crew`, {
        redirect: 'manual',
        headers: { cookie: 'courier_session=forged' },
      })
      t.equal(refused.status, 307)
      t.equal(refused.headers.get('location'), '/sign-in?next=/crew')
      const signedIn = await postForm(
        '/sign-in',
        'intent=create&name=guide-reader&password=a-password-of-the-guide&next=%2Fcrew',
      )
      t.equal(signedIn.status, 303)
      t.equal(signedIn.headers.get('location'), '/crew')
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!
      const crew = await fetch(`${origin}/crew`, { headers: { cookie } })
      t.equal(crew.status, 200)
      t.match(await crew.text(), /Welcome aboard, (<!-- -->)?guide-reader/)
      t.equal(crew.headers.get('cache-control'), pageCacheControl.dynamic)
      t.match(crew.headers.get('vary'), /Cookie/)
    },
  )

  await t.test('a client navigation in Chromium: from /about to /team/ada without a full page load', async (t) => {
    const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    const dataRequests: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/_next/data/')) dataRequests.push(new URL(request.url()).pathname)
    })
    await page.goto(`${origin}/about`)
    await page.waitForSelector('html[data-hydrated="true"]')
    await page.evaluate(() => Object.assign(window, { sameDocument: true }))
    await page.click('main a[href="/team/ada"]')
    await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'Ada Lovelace')
    t.equal(new URL(page.url()).pathname, '/team/ada')
    t.equal(await page.evaluate(() => 'sameDocument' in window), true, 'the same document: a client navigation')
    await page.waitForFunction(() => document.title === 'Ada Lovelace · Courier')
    t.ok(
      dataRequests.includes(`/_next/data/${deploymentId}/team/ada.json`),
      'its page data was fetched (or prefetched)',
    )
  })
})
