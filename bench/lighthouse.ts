/**
 * `npm run lighthouse`: Lighthouse (mobile preset, simulated throttling, as Lighthouse runs by default) against
 * Courier and the Next.js peer side by side, with Debian's Chromium, on the pages a visitor meets first: 3 runs per
 * page and server, the median run kept as Lighthouse itself picks it (`computeMedianRun`: the run nearest the median
 * FCP and time to interactive). The 404 page is audited as the 404 it is (`ignoreStatusCode`). Writes
 * bench/results/lighthouse.json and the block of docs/benchmarks.md between the `lighthouse:results` markers. Servers start and stop as for `npm run bench`
 * (bench/processes.ts), on loopback ports. With `LIGHTHOUSE_THROUGH_NGINX=true`, Courier is audited a second time through
 * nginx with deploy/nginx/ in front of the same server (bench/nginx-proxy.ts), as docs/running-at-scale.md deploys it;
 * with `LIGHTHOUSE_THROUGH_NGINX=https`, through that nginx over HTTPS and HTTP/2 (a self-signed certificate for
 * localhost that Chromium trusts by its key), and Next through a plain nginx TLS front (bench/tls-front.ts) too: the
 * simulation charges an HTTPS origin a round trip more, so each through HTTPS is the even comparison.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js'
import { loadSite } from '../src/pages/site.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { benchRoot, distDir, projectRoot, benchmarksDoc } from './config.ts'
import { buildPeer, installPeer, peerServerSpec, writePeerSite } from './peer-next.ts'
import { startNginxProxy } from './nginx-proxy.ts'
import { startTlsFront } from './tls-front.ts'
import { ensureBuild, killAllNow, startServer, stopAll, type ServerSpec } from './processes.ts'
import { lighthouseBlockMarkers, rewriteBlock } from './readme-block.ts'
import { firstGuidePath } from './targets.ts'

const chromiumPath = '/usr/bin/chromium'
const runs = Number(process.env.LIGHTHOUSE_RUNS ?? 3)
/** Audit Courier through nginx (deploy/nginx/) too: over plain HTTP (`true`), or HTTPS and HTTP/2 (`https`). */
const nginxMode = process.env.LIGHTHOUSE_THROUGH_NGINX
const throughNginx = nginxMode === 'true' || nginxMode === 'https'

type ServerName = 'courier' | 'courier-nginx' | 'next' | 'next-https'
const serverLabels: Record<ServerName, string> = {
  courier: 'Courier',
  'courier-nginx': nginxMode === 'https' ? 'Courier via nginx (HTTPS, HTTP/2)' : 'Courier via nginx',
  next: 'Next',
  'next-https': 'Next via nginx (HTTPS, HTTP/2)',
}
const resultsFile = path.join(benchRoot, 'results', 'lighthouse.json')

interface PageScore {
  page: string
  server: ServerName
  performance: number
  accessibility: number
  bestPractices: number
  seo: number
  fcpMs: number
  lcpMs: number
  tbtMs: number
  /** Time to interactive (not scored since Lighthouse 10; shown because the app's code starts after the first paint). */
  ttiMs: number
  cls: number
  /** Bytes transferred for the page (Lighthouse's total byte weight). */
  bytes: number
  /** Every run's performance score, the kept one among them. */
  runs: number[]
}

/** A page Lighthouse could not audit on a server (the peer has no such page), and why. */
interface PageMissing {
  page: string
  server: ServerName
  error: string
}

function progress(message: string): void {
  process.stderr.write(`lighthouse: ${message}\n`)
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr']
type Measured = Omit<PageScore, 'page' | 'server' | 'runs'>

/** One Lighthouse run; refuses a document answered with another status than `expectedStatus`. */
async function audit(port: number, url: string, expectedStatus: number): Promise<Lhr> {
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'],
    // The 404 page is a page visitors meet too: audit it as served, with its status.
    ignoreStatusCode: true,
  })
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`)
  const { runtimeError, audits } = result.lhr
  if (runtimeError) throw new Error(`Lighthouse failed on ${url}: ${runtimeError.code} ${runtimeError.message}`)
  type Item = { url: string; statusCode: number; protocol?: string }
  const requests = (audits['network-requests']?.details as { items?: Item[] } | undefined)?.items ?? []
  const document = requests.find((request) => request.url === url)
  const status = document?.statusCode
  if (status !== expectedStatus) throw new Error(`${url} answered ${status ?? 'nothing'}, not ${expectedStatus}`)
  // Over HTTPS the front door speaks HTTP/2: an audit over HTTP/1.1 would not measure what it says.
  if (url.startsWith('https:') && document?.protocol !== 'h2') {
    throw new Error(`${url} went over ${document?.protocol ?? 'an unknown protocol'}, not HTTP/2`)
  }
  return result.lhr
}

function measured(lhr: Lhr): Measured {
  const { categories, audits } = lhr
  const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100)
  const value = (id: string) => audits[id]?.numericValue ?? Number.NaN
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    fcpMs: Math.round(value('first-contentful-paint')),
    lcpMs: Math.round(value('largest-contentful-paint')),
    tbtMs: Math.round(value('total-blocking-time')),
    ttiMs: Math.round(value('interactive')),
    cls: Number(value('cumulative-layout-shift').toFixed(3)),
    bytes: Math.round(value('total-byte-weight')),
  }
}

function table(scores: PageScore[]): string {
  const rows = [
    '| page | server | perf | a11y | best practices | SEO | FCP | LCP | TBT | CLS | bytes | TTI |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const score of scores) {
    rows.push(
      `| \`${score.page}\` | ${serverLabels[score.server]} | ${score.performance} | ${score.accessibility} | ` +
        `${score.bestPractices} | ${score.seo} | ${(score.fcpMs / 1000).toFixed(2)} s | ${(score.lcpMs / 1000).toFixed(2)} s | ` +
        `${score.tbtMs} ms | ${score.cls} | ${(score.bytes / 1000).toFixed(1)} kB | ${(score.ttiMs / 1000).toFixed(2)} s |`,
    )
  }
  return rows.join('\n')
}

/**
 * Lighthouse now and then loses the trace of a load on a busy machine (NO_NAVSTART, NO_FCP): such a run measured
 * nothing, so it is run again, at most twice; any other failure, or a third, stops the run.
 */
async function auditWithRetries(port: number, url: string, expectedStatus: number): Promise<Lhr> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await audit(port, url, expectedStatus)
    } catch (error) {
      const lostTrace = /NO_NAVSTART|NO_FCP|NO_TRACING_STARTED/.test((error as Error).message)
      if (!lostTrace || attempt === 3) throw error
      process.stderr.write(`lighthouse: ${(error as Error).message}; running it again\n`)
    }
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  await Promise.all([ensureBuild(), installPeer()])
  const { pages } = await loadSite(false)
  const deploymentId = await readDeploymentId()
  await writePeerSite(pages, deploymentId)
  await buildPeer()
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-lighthouse-cache-'))
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    COURIER_DEV: 'false',
    COURIER_TEST_ROUTES: 'false',
  }
  const startCommand = await readStartCommand(projectRoot)
  const courierSpec: ServerSpec = {
    name: 'courier',
    // As `npm start` runs it: the compiled server.
    args: [...startCommand.nodeArgs, path.relative(projectRoot, serverEntryFile)],
    env: { ...env, IMAGE_CACHE_DIR: imageCacheDir },
    healthPath: '/api/health',
  }
  const courier = await startServer(courierSpec)
  const next = await startServer(peerServerSpec(env, '/robots.txt'))
  const servers: Partial<Record<ServerName, { origin: string }>> = { courier, next }
  const proxy = throughNginx
    ? await startNginxProxy({ distDir, deploymentId, upstreamPort: courier.port, https: nginxMode === 'https' })
    : undefined
  if (proxy) servers['courier-nginx'] = proxy
  const nextFront = nginxMode === 'https' ? await startTlsFront(next.port) : undefined
  if (nextFront) servers['next-https'] = nextFront
  const everyServer = ['courier', 'courier-nginx', 'next', 'next-https'] as const
  const audited = everyServer.filter((server) => servers[server] !== undefined)
  const notFoundPath = '/no-such-page'
  const paths = ['/', (await firstGuidePath(pages)).path, '/guides', '/faq', '/gallery', '/status', notFoundPath]
  // The test certificate trusted by its key, not by ignoring certificate errors (which would turn the cache off).
  const trusted = [proxy?.spki, nextFront?.spki].filter((spki) => spki !== undefined)
  const trust = trusted.length
    ? [`--ignore-certificate-errors-spki-list=${trusted.join(',')}`, '--host-resolver-rules=MAP localhost 127.0.0.1']
    : []
  const chromeFlags = ['--headless=new', '--no-sandbox', '--disable-gpu', ...trust]
  const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags })
  const scores: PageScore[] = []
  const missing: PageMissing[] = []
  try {
    for (const page of paths) {
      for (const server of audited) {
        const url = servers[server]!.origin + page
        const expectedStatus = page === notFoundPath ? 404 : 200
        // A first run fills the image optimizer's cache and the server's kept answers: what visitors after the first see.
        try {
          await audit(chrome.port, url, expectedStatus)
        } catch (error) {
          // A page the server does not have (answered 404), or one Lighthouse cannot load.
          const message = (error as Error).message
          missing.push({ page, server, error: message.slice(0, 200) })
          progress(`${server} ${page}: not audited: ${message.slice(0, 120)}`)
          continue
        }
        const results: Lhr[] = []
        for (let run = 0; run < runs; run++) results.push(await auditWithRetries(chrome.port, url, expectedStatus))
        const kept = measured(computeMedianRun(results))
        scores.push({ page, server, ...kept, runs: results.map((result) => measured(result).performance) })
        progress(`${server} ${page}: performance ${kept.performance}, FCP ${kept.fcpMs} ms, LCP ${kept.lcpMs} ms`)
      }
    }
  } finally {
    chrome.kill()
    await stopAll()
    await rm(imageCacheDir, { recursive: true, force: true })
  }
  const report = {
    date: new Date().toISOString(),
    runs,
    chromium: chromiumPath,
    wallTimeS: Math.round((performance.now() - started) / 1000),
    scores,
    missing,
  }
  await writeFile(resultsFile, JSON.stringify(report, null, 2) + '\n')
  const block =
    `Last run: ${report.date.slice(0, 10)}, Lighthouse mobile preset (simulated throttling), Debian's Chromium, ` +
    `the median of ${runs} runs per page (as Lighthouse picks it) after one that warms the servers; whole run ` +
    `${report.wallTimeS} s.\n\n${table(scores)}` +
    (missing.length
      ? `\n\nNot audited: ${missing.map((entry) => `\`${entry.page}\` on ${serverLabels[entry.server]}`).join(', ')} ` +
        `(${missing.map((entry) => entry.error).join('; ')}).`
      : '')
  const readme = await readFile(benchmarksDoc, 'utf8')
  await writeFile(benchmarksDoc, rewriteBlock(readme, block, lighthouseBlockMarkers))
  process.stdout.write(table(scores) + '\n')
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllNow()
    process.exit(130)
  })
}

main().catch((error: unknown) => {
  process.stderr.write(`lighthouse: ${(error as Error)?.stack ?? String(error)}\n`)
  killAllNow()
  process.exit(1)
})
