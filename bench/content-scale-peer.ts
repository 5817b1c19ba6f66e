/**
 * `npm run bench:content -- --peer=next [N...]`: the crawl of every guide's page data, 4 at a time, on Courier and on
 * the Next.js peer (bench/peers/next: pages router, the guide's getStaticProps reads the Markdown with Courier's own
 * loaders, getStaticPaths with `fallback: 'blocking'`, `revalidate`), over the same N generated guides (10,000 unless
 * named), back to back, `CONTENT_PEER_ROUNDS` times (2). Courier is asked `/_next/data/<deploymentId>/guides/<slug>.json`,
 * Next `/_next/data/<buildId>/guides/<slug>.json` (with `x-nextjs-data: 1`, as its client asks). The peer was built
 * over the repository's own content, so none of the generated guides is prerendered: each is a first load on both, as
 * Courier loads a page it does not keep yet. Before each crawl, both are asked for the first guide once (not timed): the
 * peer builds Courier's index of the guides there (Courier has it before `/api/health` says ready), and the crawl then
 * finds that one guide kept on both.
 */
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadSite } from '../src/pages/site.ts'
import {
  crawl,
  crawlCourier,
  crawlersAtOnce,
  generateContent,
  ms,
  startCourier,
  timed,
  waitForIndex,
  type Crawl,
} from './content-bench.ts'
import { peerDir } from './config.ts'
import { buildPeer, installPeer, peerBuildId, peerServerSpec, writePeerSite } from './peer-next.ts'
import { residentMiB } from './process-tree.ts'
import { startServer } from './processes.ts'
import { loadAverage } from './report.ts'

const progress = (message: string) => process.stderr.write(`bench:content: ${message}\n`)

interface Side extends Crawl {
  rss: number
}

async function courierSide(content: string, count: number, deploymentId: string): Promise<Side> {
  const { server, spawnedAt } = await startCourier(content)
  try {
    await waitForIndex(server.origin, spawnedAt)
    await timed(`${server.origin}/_next/data/${deploymentId}/guides/guide-0.json`, { 'x-deployment-id': deploymentId })
    const crawled = await crawlCourier(server.origin, count, deploymentId)
    return { ...crawled, rss: residentMiB(server.pid) }
  } finally {
    await server.stop()
  }
}

/**
 * The peer's build copied for one run (its .next, without the build cache): Next writes each page it generates on
 * demand into .next/server/pages, and a second run must not find the guides of the first there, nor the main bench
 * thousands of generated guides in its build. The rest of the peer is linked.
 */
async function peerCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-bench-next-run-'))
  await cp(path.join(peerDir, '.next'), path.join(dir, '.next'), {
    recursive: true,
    filter: (source) => path.relative(path.join(peerDir, '.next'), source) !== 'cache',
  })
  for (const file of ['package.json', 'next.config.mjs']) await cp(path.join(peerDir, file), path.join(dir, file))
  for (const linked of ['node_modules', 'generated', 'public']) {
    await symlink(path.join(peerDir, linked), path.join(dir, linked))
  }
  return dir
}

async function nextSide(content: string, count: number, buildId: string): Promise<Side> {
  const dir = await peerCopy()
  const headers = { 'x-nextjs-data': '1' }
  const server = await startServer({
    ...peerServerSpec({ ...process.env, CONTENT_DIR: content }, '/robots.txt'),
    cwd: dir,
  })
  try {
    const dataOf = (index: number) => `${server.origin}/_next/data/${buildId}/guides/guide-${index}.json`
    await timed(dataOf(0), headers)
    const crawled = await crawl(dataOf, count, headers, (body) => body.includes(`"Guide number `))
    return { ...crawled, rss: residentMiB(server.pid) }
  } finally {
    await server.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

const line = (name: string, side: Side) =>
  `  ${name}: ${side.totalS.toFixed(1)} s, p50 ${ms(side.p50)}, p99 ${ms(side.p99)}, ${side.failed} failed, RSS ${side.rss.toFixed(0)} MiB`

export async function compareWithPeer(counts: readonly number[], deploymentId: string): Promise<void> {
  await installPeer()
  await writePeerSite((await loadSite(false)).pages, deploymentId)
  await buildPeer()
  const buildId = await peerBuildId()
  const rounds = Number(process.env.CONTENT_PEER_ROUNDS ?? 2)
  for (const count of counts) {
    const content = await generateContent(count)
    try {
      for (let round = 1; round <= rounds; round++) {
        progress(`${count} guides, round ${round}/${rounds}: Courier, then Next`)
        const loadBefore = loadAverage()
        const courier = await courierSide(content, count, deploymentId)
        const next = await nextSide(content, count, buildId)
        console.log(
          [
            `${count} guides, round ${round}: every guide's page data, ${crawlersAtOnce} at a time (load average ` +
              `${loadBefore.join(', ')} before, ${loadAverage().join(', ')} after)`,
            line('Courier', courier),
            line('Next', next),
            `  Courier / Next: total ${(courier.totalS / next.totalS).toFixed(2)}x, p50 ` +
              `${(courier.p50 / next.p50).toFixed(2)}x, p99 ${(courier.p99 / next.p99).toFixed(2)}x`,
          ].join('\n'),
        )
      }
    } finally {
      await rm(content, { recursive: true, force: true })
    }
  }
}
