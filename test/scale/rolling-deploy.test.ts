/**
 * 2. A rolling deploy from deployment A to deployment B with deploy/rolling-deploy.ts, nginx and Redis real, while
 * Chromium tabs opened on A keep navigating and prefetching and while load runs. B is a build of a copy of the
 * project in which one page differs (test/helpers/changed-build.ts), so its chunk names differ from A's. Expected: no failed chunk load, no 5xx, every
 * old tab on B's pages after at most one full navigation, and no console error but the expected
 * `Failed to load page data` (with the 409 that causes it). B's chunks are published with their deltas against A's
 * (docs/running-at-scale.md "Dictionaries after a deploy"): through nginx, a browser that kept A's chunk of that page
 * gets B's as a delta, which decodes to B's file. The tabs move by the main navigation's links to the page table's
 * pages, by address, whatever the site calls them.
 */
import { createHash } from 'node:crypto'
import http from 'node:http'
import { brotliDecompressSync, type BrotliOptions } from 'node:zlib'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from 'playwright-core'
import t from 'tap'
import { projectRoot } from '../reliability/server-process.ts'
import type { Target } from '../reliability/targets.ts'
import { pruneAssets } from '../../deploy/shared-assets.ts'
import { publicSitePages as pages } from '../helpers/page-table.ts'
import { buildWithChangedPage, isPageChunk } from '../helpers/changed-build.ts'
import { runMixedLoad } from './load.ts'
import { firstDeploy, runDeploy } from './deploy-run.ts'
import { startRedis } from './processes.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const markerB = 'deployment-b-marker'
/** The pages the main navigation can link: every page of the table without parameters. */
const linkable = pages.filter((page) => !page.path.includes(':'))
/** A page whose data is never kept (fetched at every navigation): the first visit to it meets the new deployment. */
const uncached = linkable.find((page) => page.kind === 'dynamic')
if (!uncached) throw new Error('the page table has no dynamic page without parameters')
const navLink = (page: Page, href: string) => page.locator(`nav[aria-label="Main"] a[href="${href}"]`)

async function deploymentIdOf(distDir: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as { deploymentId: string })
    .deploymentId
}

t.test(
  '2. rolling deploy A -> B under tabs and load: no failed chunk, no 5xx, old tabs on B after one full load',
  async (t) => {
    const redis = await startRedis(t)
    const distA = path.join(projectRoot, 'dist')
    const idA = await deploymentIdOf(distA)

    // B: the same project with one page changed, built into a folder of its own, with its content (CONTENT_DIR's default).
    const changed = await buildWithChangedPage(markerB)
    t.teardown(changed.remove)
    const { sourceDir: sourceB, distDir: distB, page: changedPage } = changed
    const idB = await deploymentIdOf(distB)
    t.not(idB, idA, 'two deployments')
    const pageChunks = async (dist: string) =>
      (await readdir(path.join(dist, 'client', 'chunks'))).filter((name) => isPageChunk(changedPage.id, name))
    t.notSame(await pageChunks(distB), await pageChunks(distA), "the changed page's chunk names differ")

    // A: deployed by the script, nginx started by it.
    const state = await mkdtemp(path.join(tmpdir(), 'courier-deploy-'))
    const commonOn = (port: number | undefined) => [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--instances',
      '2',
      '--old-grace-seconds',
      '4',
    ]
    // The instances' environment comes from the state's env file, not from the shell that runs the deploy.
    await writeFile(path.join(state, 'courier.env'), `REDIS_URL=${redis.url}\nLOG_LEVEL=info\n`, { mode: 0o600 })
    const env = {}
    t.teardown(async () => {
      await runDeploy(['--stop', '--state', state], env)
      await rm(state, { recursive: true, force: true })
    })
    const first = await firstDeploy(1, ([port]) => [...commonOn(port), '--dist', distA, '--source', projectRoot], env)
    const deployedA = first.run
    const origin = `http://127.0.0.1:${first.ports[0]}`
    const common = commonOn(first.ports[0])
    t.equal(deployedA.code, 0, 'A deployed')
    if (deployedA.code !== 0) return t.comment(deployedA.output)

    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
        '--disable-quic',
      ],
    })
    t.teardown(() => browser.close())
    const context = await browser.newContext()
    const consoleErrors: Array<{ text: string; url: string }> = []
    const failedChunks: string[] = []
    const serverErrors: string[] = []
    const skewAnswers: string[] = []
    context.on('response', (response) => {
      // The idle tab's expected failures are checked on their own below.
      if (response.frame().page() === idlePageRef.page) return
      const url = new URL(response.url())
      if (response.status() >= 500) serverErrors.push(`${response.status()} ${url.pathname}`)
      if (url.pathname.startsWith('/_next/static/') && response.status() !== 200)
        failedChunks.push(`${response.status()} ${url.pathname}`)
      if (response.status() === 409) skewAnswers.push(url.pathname)
    })
    context.on('requestfailed', (request) => {
      if (request.frame().page() === idlePageRef.page) return
      const url = new URL(request.url())
      // A navigation away aborts what the old page still had in flight: not a failed load.
      if (url.pathname.startsWith('/_next/static/') && request.failure()?.errorText !== 'net::ERR_ABORTED')
        failedChunks.push(`failed ${url.pathname}`)
    })

    const idlePageRef: { page: Page | undefined } = { page: undefined }
    const tabs: Array<{ page: Page; loads: number }> = []
    for (let index = 0; index < 3; index += 1) {
      const page = await context.newPage()
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push({ text: message.text(), url: message.location().url })
      })
      page.on('pageerror', (error) => consoleErrors.push({ text: `uncaught: ${error.message}`, url: page.url() }))
      await page.goto(`${origin}/`, { waitUntil: 'load' })
      const hydrated = await page
        .waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, { timeout: 15_000 })
        .then(
          () => true,
          () => false,
        )
      t.ok(hydrated, `tab ${index} hydrated`)
      if (!hydrated)
        t.comment(JSON.stringify({ consoleErrors: consoleErrors.slice(0, 3), failedChunks: failedChunks.slice(0, 3) }))
      t.equal(await page.getAttribute('html', 'data-dpl-id'), idA, `tab ${index} opened on A`)
      const tab = { page, loads: 0 }
      page.on('load', () => (tab.loads += 1))
      tabs.push(tab)
    }

    // A fourth tab on A that stays put and never prefetches (Save-Data): after the deploy its next page needs a chunk
    // and page data of A when neither A's instances nor (once pruned) A's assets exist.
    const idlePage = await context.newPage()
    idlePageRef.page = idlePage
    await idlePage.addInitScript(() => Object.defineProperty(navigator, 'connection', { value: { saveData: true } }))
    const idleConsole: string[] = []
    idlePage.on('console', (message) => void (message.type() === 'error' && idleConsole.push(message.text())))
    await idlePage.goto(`${origin}/`, { waitUntil: 'load' })
    await idlePage.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, {
      timeout: 15_000,
    })
    let idleLoads = 0
    idlePage.on('load', () => (idleLoads += 1))

    // The tabs keep moving: hover (prefetch) and click through the main navigation.
    let moving = true
    let stepErrors = 0
    const activity = tabs.map(async ({ page }, index) => {
      let step = index
      while (moving) {
        const href = linkable[step++ % linkable.length]!.path
        try {
          const link = navLink(page, href)
          await link.hover({ timeout: 5_000 })
          await sleep(150)
          await link.click({ timeout: 5_000 })
          await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, {
            timeout: 10_000,
          })
        } catch {
          // A full navigation in the middle of a step (the skew path) interrupts it; the records say what went wrong.
          stepErrors += 1
        }
        await sleep(300)
      }
    })

    const targets: Target[] = linkable.map(({ path: pagePath }) => ({
      name: `page ${pagePath}`,
      path: pagePath,
      status: 200,
      check: (body: string) => body.includes('data-dpl-id="') && body.trimEnd().endsWith('</html>'),
    }))
    const load = runMixedLoad(
      origin,
      [...targets, { name: 'health', path: '/api/health', status: 200, check: (body) => body.includes('"ok"') }],
      {
        seconds: 20,
        clients: 4,
      },
    )

    await sleep(3_000)
    const deployedB = await runDeploy([...common, '--dist', distB, '--source', sourceB], env)
    t.equal(deployedB.code, 0, 'B deployed, A drained')
    if (deployedB.code !== 0) t.comment(deployedB.output)
    const deltaLine = deployedB.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; deltas?: number })
      .find((line) => line.msg === 'dictionary deltas written')
    t.ok((deltaLine?.deltas ?? 0) > 0, `B published with ${deltaLine?.deltas} deltas against A's chunks`)
    {
      const [chunkA] = await pageChunks(distA)
      const [chunkB] = await pageChunks(distB)
      const dictionary = await readFile(path.join(distA, 'client', 'chunks', chunkA!))
      const answer = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const hash = createHash('sha256').update(dictionary).digest('base64')
        const headers = { 'accept-encoding': 'gzip, deflate, br, zstd, dcb, dcz', 'available-dictionary': `:${hash}:` }
        http
          .get(`${origin}/_next/static/chunks/${chunkB}?dpl=${idB}`, { headers, agent: false }, (response) => {
            const parts: Buffer[] = []
            response.on('data', (part: Buffer) => parts.push(part))
            response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(parts) }))
            response.on('error', reject)
          })
          .on('error', reject)
      })
      t.equal(
        answer.headers['content-encoding'],
        'dcb',
        "B's chunk of the changed page through nginx, to a browser that kept A's: a delta (brotli's, the smaller)",
      )
      const decoded = brotliDecompressSync(answer.body.subarray(36), { dictionary } as BrotliOptions & {
        dictionary: Buffer
      })
      t.ok(
        decoded.equals(await readFile(path.join(distB, 'client', 'chunks', chunkB!))),
        `which decodes to B's chunk (${answer.body.length} bytes for ${decoded.length})`,
      )
    }
    await sleep(2_000)
    moving = false
    await Promise.all(activity)

    // Every old tab moves on through the site until it runs B: the first request for A's page data that meets no A
    // instance gets 409 and makes a full load of B's page. (Page data A had cached before it left is still shown
    // client-side without a request, so the switch comes at the first page not in that cache; a dynamic page's never is.)
    for (const [index, tab] of tabs.entries()) {
      const { page } = tab
      for (const href of [uncached.path, ...linkable.map((linked) => linked.path), uncached.path]) {
        if ((await page.getAttribute('html', 'data-dpl-id')) === idB) break
        if (new URL(page.url()).pathname === href) continue
        await navLink(page, href).click({ timeout: 5_000 })
        await page.waitForURL((url) => url.pathname === href, { timeout: 15_000 })
        await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, {
          timeout: 15_000,
        })
      }
      t.equal(await page.getAttribute('html', 'data-dpl-id'), idB, `tab ${index} ends on B`)
      t.ok(tab.loads <= 1, `tab ${index} needed ${tab.loads} full page load(s) after the first`)
      if (new URL(page.url()).pathname !== changedPage.path) {
        await navLink(page, changedPage.path).click({ timeout: 5_000 })
        await page.waitForURL((url) => url.pathname === changedPage.path, { timeout: 15_000 })
      }
      await page.waitForSelector(`#${markerB}`, { state: 'attached', timeout: 10_000 })
      t.pass(`tab ${index} shows B's version of ${changedPage.path}`)
    }

    const report = await load
    t.same(failedChunks, [], 'no chunk failed to load')
    t.same(serverErrors, [], 'no 5xx in the browser')
    t.same(report.wrong, {}, 'no wrong answer under load')
    t.equal(report.lost, 0, 'no request lost under load')
    const unexpected = consoleErrors.filter(
      (entry) =>
        !/Failed to load page data/.test(entry.text) &&
        !(/status of 409/.test(entry.text) && entry.url.includes('/_next/data/')),
    )
    t.same(unexpected, [], 'no console error but the expected page-data failure (and its 409)')
    // A's assets pruned (keep 1: B's): the idle tab's chunk of the changed page is gone and A's instances too. The click
    // meets a 404 for the chunk and a 409 for the data; the client's full navigation lands on B's version of the page.
    t.same(await pruneAssets(path.join(state, 'nginx', 'assets'), 1, [idB]), [idA], "A's assets removed")
    const [pageChunkA] = await pageChunks(distA)
    const goneChunk = await fetch(`${origin}/_next/static/chunks/${pageChunkA}?dpl=${idA}`)
    await goneChunk.arrayBuffer()
    t.equal(goneChunk.status, 404, "A's chunk of the changed page is fetchable nowhere now")
    await navLink(idlePage, changedPage.path).click({ timeout: 5_000 })
    await idlePage.waitForFunction((id) => document.documentElement.dataset.dplId === id, idB, { timeout: 15_000 })
    await idlePage.waitForSelector(`#${markerB}`, { state: 'attached', timeout: 10_000 })
    t.equal(new URL(idlePage.url()).pathname, changedPage.path, 'the idle tab ends on the page it asked for, from B')
    t.equal(idleLoads, 1, 'after one full load')
    t.comment(`idle tab console errors (expected: the missing chunk, the 409): ${JSON.stringify(idleConsole)}`)

    t.comment(
      `tabs: ${tabs.map((tab) => tab.loads).join('/')} full loads after the first; 409 answers: ${skewAnswers.length}; ` +
        `interrupted steps: ${stepErrors}; load: ${report.sent} requests (${report.requestsPerSecond} req/s), resent after close: ${report.resentAfterClose}`,
    )
  },
)
