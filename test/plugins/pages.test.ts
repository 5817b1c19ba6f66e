import t from 'tap'
import http from 'node:http'
import { guides } from '../helpers/content.ts'
import { pageInstances, testGuidePath, testGuidesPath, testRoutes, titleOf } from '../helpers/site-pages.ts'
import { escapeHtml } from '../../src/render/template.ts'
import { testTitled as titled } from '../site/test-title.ts'
import { textOf } from '../../src/content/markdown.ts'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { build } from '../helpers/app.ts'
import { getChunks, listen } from '../helpers/http.ts'

// Filtered pages carry the request's CSP nonce on the state script too.
const stateScript = /<script id="__COURIER_DATA__" type="application\/json"(?: nonce="[^"]+")?>([\s\S]*?)<\/script>/

function stateOf(html: string): { type: string; pageId?: string; data?: unknown; deploymentId: string } {
  const match = stateScript.exec(html)
  if (!match) throw new Error('no hydration state in the page')
  return JSON.parse(match[1]!)
}

t.test('every page answers with its content, title and deployment id', async (t) => {
  const { app } = await build(t)
  // Every page of the site, a parametrised one by its first instance (from the tests' own content), with the title
  // its head gives for the data its loader gives.
  const cases: Array<[string, string, string]> = []
  for (const instance of await pageInstances({ firstOnly: true })) {
    cases.push([instance.url, instance.page.id, `<title>${escapeHtml(await titleOf(instance))}</title>`])
  }
  t.ok(cases.length > 1, `the site's pages (${cases.length})`)
  for (const [url, pageId, content] of cases) {
    const response = await app.inject({ method: 'GET', url })
    t.equal(response.statusCode, 200, url)
    t.match(response.headers['content-type'], /^text\/html; charset=utf-8/, url)
    t.match(response.body, /^<!doctype html>/, url)
    t.match(response.body, content, url)
    t.match(response.body, `<html lang="en" data-dpl-id="${app.deploymentId}">`, url)
    t.match(response.body, /<main[^>]*><[^>]+>[\s\S]*?<h1[^>]*>[^<]/, `${url}: its content, a heading in main`)
    const state = stateOf(response.body)
    t.equal(state.pageId, pageId, url)
    t.equal(state.deploymentId, app.deploymentId, url)
  }
})

t.test('title and meta come from the page table', async (t) => {
  const { app } = await build(t, testRoutes)
  const guide = guides[1]!
  const response = await app.inject(testGuidePath(guide.slug))
  t.match(response.body, `<title>${escapeHtml(titled(guide.title))}</title>`)
  t.match(
    response.body,
    `<meta name="description" content="${escapeHtml(guide.summary)}" />`,
    'its description, from its data',
  )
})

t.test('static and dynamic pages are cached differently', async (t) => {
  const { app } = await build(t, testRoutes)
  const kept = await app.inject(testGuidesPath)
  t.equal(kept.headers['cache-control'], 'private, no-cache', 'never in a shared cache: documents carry a nonce')
  const dynamic = await app.inject('/__test/slow?delay=0')
  t.match(dynamic.headers['cache-control'], /no-store/)
  t.match(dynamic.headers['cache-control'], /private/)
})

t.test('every asset in the page carries ?dpl=<id>', async (t) => {
  const { app } = await build(t)
  const response = await app.inject('/')
  const { entries, preloads } = entryLoaderUrls(response.body)
  const named = [...response.body.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+)"/g)].map((match) => match[1]!)
  const assets = [...named, ...entries, ...preloads]
  t.ok(assets.length >= 3, 'font, entry script and page chunk')
  for (const asset of assets) t.match(asset, new RegExp(`\\?dpl=${app.deploymentId}$`), asset)
  t.match(
    response.body,
    /<link rel="preload" href="\/_next\/static\/chunks\/inter-core-wght-normal-[^"]+\.woff2\?dpl=[^"]+" as="font" type="font\/woff2" crossorigin>/,
  )
})

t.test("the page's own chunk is preloaded with the entry, under the same URL the client imports", async (t) => {
  const { app } = await build(t, testRoutes)
  const response = await app.inject(testGuidesPath)
  const { entries, preloads } = entryLoaderUrls(response.body)
  t.equal(entries.length, 1, 'the loader starts one entry')
  const preload = preloads.find((url) => /^\/_next\/static\/chunks\/test-guides-[\w-]+\.js\?dpl=/.test(url))
  t.ok(preload, "a modulepreload for the page's chunk")
  t.notMatch(
    response.body,
    /<script type="module"|<link rel="modulepreload"/,
    'neither is named in the head: the loader starts them',
  )
  const entry = entries[0]!
  const entryCode = (await app.inject(entry)).body
  const chunkName = preload!.split('/').pop()!
  t.match(entryCode, chunkName, 'the entry imports the very same URL')
  t.equal((await app.inject(preload!)).statusCode, 200)
})

t.test('a guide that does not exist is a 404 page', async (t) => {
  const { app } = await build(t, testRoutes)
  const response = await app.inject(testGuidePath('no-such-guide'))
  t.equal(response.statusCode, 404)
  t.match(response.body, '<title>404: This page could not be found</title>')
})

t.test('HEAD answers like GET without a body', async (t) => {
  const { app } = await build(t, testRoutes)
  const response = await app.inject({ method: 'HEAD', url: testGuidesPath })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /text\/html/)
  t.equal(response.body, '')
})

t.test('page data is embedded safely: </script> and U+2028 in data cannot break out', async (t) => {
  const { app } = await build(t, testRoutes)
  const hostile = guides.find((guide) =>
    guide.sections.some((section) => textOf(section.content).includes('</script>')),
  )
  t.ok(hostile, 'a guide whose text holds </script>')
  const response = await app.inject(testGuidePath(hostile!.slug))
  t.equal(response.statusCode, 200)
  const match = stateScript.exec(response.body)
  t.ok(match, 'the state script is intact')
  t.notMatch(match![1]!, /<\/script/i)
  t.notMatch(match![1]!, /[\u2028\u2029]/)
  const state = stateOf(response.body) as { data: { guide: { slug: string } } }
  t.equal(state.data.guide.slug, hostile!.slug, 'the data parses back')
  t.match(response.body, /&lt;\/script&gt;/, 'in the markup the text is escaped by React')
})

t.test('streaming: the shell is flushed before a slow Suspense boundary resolves', async (t) => {
  const { app } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const base = await listen(app)
  const { status, chunks } = await getChunks(`${base}/__test/slow?delay=300`)
  t.equal(status, 200)
  const shellAt = chunks.findIndex((chunk) => chunk.text.includes('Waiting…'))
  const resolvedAt = chunks.findIndex((chunk) => chunk.text.includes('Resolved after'))
  t.ok(shellAt >= 0, 'the shell with the fallback arrived')
  t.ok(resolvedAt > shellAt, `the boundary came in a later chunk (${shellAt} then ${resolvedAt})`)
  const shell = chunks
    .slice(0, shellAt + 1)
    .map((chunk) => chunk.text)
    .join('')
  t.match(shell, /^<!doctype html>/)
  t.notMatch(shell, 'Resolved after', 'the boundary content is not in the shell')
  const whole = chunks.map((chunk) => chunk.text).join('')
  t.match(whole, /Resolved after <!-- -->300<!-- --> ms\./)
  t.match(whole, /<\/html>\s*$/)
})

t.test('test routes are absent unless COURIER_TEST_ROUTES is on', async (t) => {
  const { app } = await build(t)
  const response = await app.inject('/__test/slow')
  t.equal(response.statusCode, 404)
})

t.test('a client that disconnects aborts the render; nothing is logged as an error', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const base = await listen(app)
  await new Promise<void>((resolve, reject) => {
    const request = http.get(`${base}/__test/slow?delay=3000`, (response) => {
      response.once('data', () => {
        request.destroy()
        resolve()
      })
    })
    request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(error)))
  })
  for (let waited = 0; waited < 2000 && !logs().some((line) => line.msg.startsWith('render aborted')); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.ok(
    logs().some((line) => line.msg === 'render aborted: the client closed the connection'),
    'the render was aborted',
  )
  t.notOk(
    logs().some((line) => line.level >= 50),
    'no error line',
  )
})

t.test('a render that outlives the render time-out is aborted and the document still ends', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' }, { limits: { renderTimeoutMs: 100 } })
  const base = await listen(app)
  const { status, chunks } = await getChunks(`${base}/__test/slow?delay=3000`)
  const whole = chunks.map((chunk) => chunk.text).join('')
  t.equal(status, 200, 'the status already sent stays')
  t.notMatch(whole, 'Resolved after')
  t.match(whole, /<\/html>\s*$/, 'the document is complete')
  const timedOut = logs().find((line) => line.msg === 'render timed out')
  t.ok(timedOut, 'the time-out is logged')
  t.match(timedOut?.digest, /^[0-9a-f]{10}$/)
  t.ok(timedOut?.reqId)
})
