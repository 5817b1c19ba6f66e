/**
 * Chromium over HTTPS and HTTP/2 through `npm run deploy`'s nginx (docs/running-at-scale.md "HTTPS"), trusting the
 * test certificate by its key (`--ignore-certificate-errors-spki-list`: Chromium then treats the origin as secure and
 * keeps its HTTP cache, which `--ignore-certificate-errors` would turn off). Deployment A is the production build;
 * B is built by the deploy from a copy of this checkout whose client entry sets one more attribute on `<html>` (a
 * change to the code every page loads, about no page of the site): the entry chunk, and every chunk that imports
 * it, get new names.
 * - a first visit: HTTP/2, hydrated;
 * - after the deploy of B, a returning visitor gets B's chunks as `dcb`/`dcz` deltas against A's, which its cache
 *   kept as dictionaries; the bytes of script it downloads are compared with a first visit of B;
 * - a tab left open on A navigates after A is gone: it lands on B without a page error.
 */
import { createHash, X509Certificate } from 'node:crypto'
import { appendFile, cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { listBuildSources } from '../../src/build/source-hash.mjs'
import { chromiumArgs, chromiumPath } from '../e2e/harness.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { firstDeploy, makeCertificate, runDeploy, stateFolder } from './deploy-run.ts'

const state = await stateFolder(t, { LOG_LEVEL: 'warn' })
const { certificate, key } = makeCertificate(state, 'site')
const spki = createHash('sha256')
  .update(new X509Certificate(await readFile(certificate)).publicKey.export({ type: 'spki', format: 'der' }))
  .digest('base64')
const deployArgs = ([plainPort, httpsPort]: number[]) => [
  '--state',
  state,
  '--listen',
  `127.0.0.1:${plainPort}`,
  '--https-listen',
  `127.0.0.1:${httpsPort}`,
  '--tls-cert',
  certificate,
  '--tls-key',
  key,
  '--instances',
  '1',
  '--old-grace-seconds',
  '0',
]
const first = await firstDeploy(2, (ports) => [
  ...deployArgs(ports),
  '--dist',
  path.join(projectRoot, defaultDistDir(false)),
])
const deployedA = first.run
const common = deployArgs(first.ports)
const origin = `https://localhost:${first.ports[1]}`

// B's sources: what a build reads, its content, and the checkout's installed packages.
const sourceB = await mkdtemp(path.join(tmpdir(), 'courier-source-b-'))
t.teardown(() => rm(sourceB, { recursive: true, force: true }))
for (const entry of [...listBuildSources(projectRoot), 'content', '.node-version'])
  await cp(path.join(projectRoot, entry), path.join(sourceB, entry), { recursive: true })
await symlink(path.join(projectRoot, 'node_modules'), path.join(sourceB, 'node_modules'))
await appendFile(
  path.join(sourceB, 'client', 'entry-client.tsx'),
  "\ndocument.documentElement.dataset.buildMarker = 'b'\n",
)
if (deployedA.code !== 0) throw new Error(`A did not deploy:\n${deployedA.output}`)

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: [
    ...chromiumArgs,
    `--ignore-certificate-errors-spki-list=${spki}`,
    '--host-resolver-rules=MAP localhost 127.0.0.1',
  ],
})
t.teardown(() => browser.close())

interface Visit {
  page: Page
  deploymentId: string | null
  protocol: string
  /** Each script's bytes on the wire and the coding it came in. */
  scripts: Array<{ path: string; encodedBytes: number; coding: string }>
  pageErrors: string[]
}

async function visit(context: BrowserContext, pagePath: string): Promise<Visit> {
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  const codings = new Map<string, string>()
  page.on('response', async (response) => {
    const url = new URL(response.url())
    if (url.pathname.endsWith('.js'))
      codings.set(url.pathname, (await response.allHeaders())['content-encoding'] ?? 'identity')
  })
  await page.goto(`${origin}${pagePath}`, { waitUntil: 'load' })
  await page.waitForSelector('html[data-hydrated="true"]', { state: 'attached', timeout: 20_000 })
  // The browser stores a dictionary once its answer is complete.
  await sleep(1_000)
  const entries = await page.evaluate(() => ({
    protocol: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
    scripts: (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => /\/_next\/static\/chunks\/[^/?]+\.js(\?|$)/.test(entry.name))
      .map((entry) => ({ path: new URL(entry.name).pathname, encodedBytes: entry.encodedBodySize })),
  }))
  return {
    page,
    deploymentId: await page.getAttribute('html', 'data-dpl-id'),
    protocol: entries.protocol,
    scripts: entries.scripts.map((script) => ({ ...script, coding: codings.get(script.path) ?? '(from cache)' })),
    pageErrors,
  }
}

const bytes = (one: Visit) => one.scripts.reduce((total, script) => total + script.encodedBytes, 0)

t.test('first visit, a deploy, a returning visit with deltas, an old tab across the deploy', async (t) => {
  const returningContext = await browser.newContext()
  const oldTabContext = await browser.newContext()
  const firstA = await visit(returningContext, '/')
  t.equal(firstA.protocol, 'h2', 'HTTP/2')
  t.ok(firstA.deploymentId, `a first visit of A (${firstA.scripts.length} scripts, ${bytes(firstA)} bytes)`)
  t.same(firstA.pageErrors, [], 'no page error')
  const oldTab = await visit(oldTabContext, '/')
  await firstA.page.close()

  const deployedB = await runDeploy([...common, '--source', sourceB])
  t.equal(deployedB.code, 0, deployedB.code === 0 ? 'B deployed, A drained' : deployedB.output.slice(-4000))

  const idB = deployedB.lines.find((line) => line.msg === 'deployed')?.deploymentId
  const returning = await visit(returningContext, '/?visit=2')
  t.equal(returning.deploymentId, idB, 'the returning visit gets B')
  t.equal(await returning.page.getAttribute('html', 'data-build-marker'), 'b', "B's code runs")
  const deltas = returning.scripts.filter((script) => script.coding === 'dcb' || script.coding === 'dcz')
  t.ok(
    deltas.length > 0,
    `B's scripts as deltas: ${deltas.length} of ${returning.scripts.length} (${[...new Set(deltas.map((one) => one.coding))].join(', ')})`,
  )
  t.same(returning.pageErrors, [], 'no page error')
  const firstB = await visit(await browser.newContext(), '/')
  const share = bytes(returning) / bytes(firstB)
  t.ok(
    share <= 0.15,
    `a returning visit downloads ${bytes(returning)} bytes of script, ${(share * 100).toFixed(1)} % of a first visit's ${bytes(firstB)} (goal: 15 % at most)`,
  )

  // The old tab follows the links of its page to other paths, one after the other: each lands, from A's data it had
  // prefetched while A lived, or from B after a 409 for A's data and a full load; none breaks the page.
  const targets = [
    ...new Set(
      await oldTab.page
        .locator('a[href^="/"]')
        .evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? '')),
    ),
  ]
    .filter((href) => href !== '/' && !href.includes('#'))
    .slice(0, 3)
  t.ok(targets.length > 0, `links to follow: ${targets.join(' ')}`)
  for (const target of targets) {
    await oldTab.page.locator(`a[href="${target}"]`).first().click()
    await oldTab.page.waitForURL((url) => url.pathname === target, { timeout: 20_000 })
    await oldTab.page.waitForSelector('html[data-hydrated="true"]', { state: 'attached', timeout: 20_000 })
    t.pass(
      `the old tab lands on ${target}, from ${(await oldTab.page.getAttribute('html', 'data-dpl-id')) === idB ? 'B' : 'A'}`,
    )
  }
  t.same(oldTab.pageErrors, [], 'without a page error')
})
