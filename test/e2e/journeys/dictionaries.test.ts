/**
 * A returning visitor after a deploy, in every engine (docs/compression.md "Dictionaries"): a first visit to a page
 * on deployment A, then deployment B behind the same origin (a build in which that page changed, with the deltas of its
 * chunks against A's), and a second visit in the same tab. Chromium kept A's chunks as dictionaries: B's chunks
 * arrive as deltas (`dcb`, the smaller, for its own Accept-Encoding; `dcz` when the proxy leaves only that one), decode
 * to B's exact sizes, the page shows B's version and works, with no console error. An engine that names no dictionary
 * (Firefox ESR, WebKitGTK) gets its br, zstd or gzip and works alike.
 */
import t, { type Test } from 'tap'
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { projectRoot } from '../../../config/env.ts'
import { sha256 } from '../../../src/compression/dictionaries.ts'
import { dictionaryFilesIn, writeDeltas } from '../../../src/build/dictionary-deltas.ts'
import { buildWithChangedPage } from '../../helpers/changed-build.ts'
import { startServer, timeouts } from '../harness.ts'
import { eventually, sleep, startJourneys, type ProxiedRequest } from '../journey.ts'

const marker = 'deployment-b-page'
const suite = await startJourneys(t)
const changed = await buildWithChangedPage(marker)
const pagePath = changed.page.path
t.teardown(changed.remove)
const chunksA = path.join(path.resolve(projectRoot, process.env.DIST_DIR ?? 'dist'), 'client', 'chunks')
const chunksB = path.join(changed.distDir, 'client', 'chunks')
const dictionaryFiles = await dictionaryFilesIn(chunksA)
const deltas = await writeDeltas(chunksB, dictionaryFiles)
const serverB = await startServer({ DIST_DIR: changed.distDir }, { rootDir: changed.sourceDir })
t.teardown(() => serverB.close())
/** Hex SHA-256 of A's chunks, by the way a browser names them in Available-Dictionary. */
const hexOf = new Map<string, string>()
for (const file of dictionaryFiles) {
  const hash = sha256(await readFile(file))
  hexOf.set(`:${hash.toString('base64')}:`, hash.toString('hex'))
}

const isChunk = (request: ProxiedRequest) => /\/_next\/static\/chunks\/[^/?]+\.js(\?|$)/.test(request.url)
const nameOf = (request: ProxiedRequest) => path.basename(new URL(request.url).pathname)
const allAnswered = (requests: () => ProxiedRequest[]) =>
  eventually(
    () =>
      requests()
        .filter(isChunk)
        .every((request) => request.status !== undefined),
    timeouts.actionMs,
  )

interface ResourceSize {
  name: string
  encodedBodySize: number
  decodedBodySize: number
}

/** The changed page on A, then on B in the same tab; `onlyDcz`: B's chunk requests reach the server naming `dcz` alone. */
async function returningVisit(t: Test, onlyDcz: boolean) {
  suite.routeTo(suite.serverOrigin)
  const session = await suite.open(t)
  const first = await session.goto(pagePath)
  t.equal(first.status, 200, `deployment A: ${pagePath} 200`)
  t.ok(await session.waitForHydration(), 'deployment A: hydrated')
  await allAnswered(() => session.requests())
  const firstChunks = session.requests().filter(isChunk)
  t.ok(firstChunks.length > 0, `deployment A: ${firstChunks.length} scripts`)
  for (const request of firstChunks) {
    t.match(
      String(request.responseHeaders?.['use-as-dictionary']),
      /^match="\/_next\/static\/chunks\/[A-Za-z0-9_.-]+-\*\.js", match-dest=\("script"\)$/,
      `${nameOf(request)}: offered as a dictionary`,
    )
  }
  // The browser stores a dictionary once its answer is complete: a moment after the load.
  await sleep(1_000)

  suite.routeTo(serverB.origin)
  if (onlyDcz) {
    session.route(
      (pathAndQuery) => pathAndQuery.startsWith('/_next/static/chunks/'),
      () => ({ acceptEncoding: 'gzip, deflate, br, zstd, dcz' }),
    )
  }
  const before = session.requests().length
  // A URL the engine has not kept a document for (Firefox answers a load of the same URL from its own cache).
  const second = await session.goto(`${pagePath}?visit=2`)
  t.equal(second.status, 200, `deployment B: ${pagePath} 200`)
  t.ok(await session.waitForHydration(), 'deployment B: hydrated')
  t.ok(
    await session.waitFor((id) => document.getElementById(id) !== null, marker),
    "deployment B's version of the page",
  )
  await allAnswered(() => session.requests().slice(before))
  const secondChunks = session.requests().slice(before).filter(isChunk)
  t.ok(secondChunks.length > 0, `deployment B: ${secondChunks.length} scripts`)
  // A prefetch the proxy has answered may still be arriving: its timing entry comes when the browser has it all.
  const names = secondChunks.map(nameOf)
  t.ok(
    await session.waitFor(
      (expected) =>
        expected.every((name) =>
          performance.getEntriesByType('resource').some((entry) => entry.name.includes(`/${name}`)),
        ),
      names,
    ),
    "every script's timing entry",
  )
  const sizes = (await session.evaluate(
    () =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((entry) => ({
        name: new URL(entry.name).pathname.split('/').pop() ?? '',
        encodedBodySize: entry.encodedBodySize,
        decodedBodySize: entry.decodedBodySize,
      })),
    null,
  )) as ResourceSize[]

  const offered = secondChunks.filter((request) => request.headers['available-dictionary'] !== undefined)
  const codings = secondChunks.map(
    (request) => `${nameOf(request)} ${request.responseHeaders?.['content-encoding'] ?? 'identity'}`,
  )
  t.comment(
    `${suite.engine}: Accept-Encoding "${String(secondChunks[0]?.headers['accept-encoding'] ?? '')}", ${offered.length} of ${secondChunks.length} scripts named a dictionary; ${codings.join(', ')}`,
  )
  if (suite.engine === 'chromium') {
    const withDelta = secondChunks.filter((request) => deltas.written.some((delta) => delta.chunk === nameOf(request)))
    t.ok(withDelta.length > 0, 'B has deltas for the scripts the page loads')
    for (const request of withDelta) {
      const name = nameOf(request)
      t.match(String(request.headers['accept-encoding']), /\bdcb\b.*\bdcz\b/, `${name}: the browser takes dcb and dcz`)
      const hex = hexOf.get(String(request.headers['available-dictionary']))
      t.ok(hex, `${name}: and names one of A's chunks as its dictionary`)
      const coding = String(request.responseHeaders?.['content-encoding'])
      const expected = onlyDcz ? ['dcz'] : ['dcb', 'dcz']
      t.ok(expected.includes(coding), `${name}: a delta in ${coding}`)
      const deltaBytes = (await stat(path.join(chunksB, `${name}.${hex}.${coding}`))).size
      t.equal(
        request.responseHeaders?.['content-length'],
        String(deltaBytes),
        `${name}: the ${deltaBytes} bytes of its ${coding} file`,
      )
      const bytes = (await stat(path.join(chunksB, name))).size
      const size = sizes.find((entry) => entry.name === name)
      t.equal(size?.decodedBodySize, bytes, `${name}: decoded to B's ${bytes} bytes`)
      t.equal(size?.encodedBodySize, deltaBytes, `${name}: ${deltaBytes} bytes on the wire`)
    }
  } else {
    for (const request of secondChunks) {
      const coding = request.responseHeaders?.['content-encoding']
      if (request.headers['available-dictionary'] === undefined)
        t.notOk(
          coding === 'dcb' || coding === 'dcz',
          `${nameOf(request)}: no dictionary named, no delta (${coding ?? 'identity'})`,
        )
    }
  }
  // On to another page of B by the site's link home (whatever the site's pages, its layout links `/`).
  await session.tab.click('a[href="/"]')
  t.ok(
    await session.waitFor(
      (id) =>
        location.pathname === '/' && document.getElementById(id) === null && document.querySelector('main h1') !== null,
      marker,
    ),
    'deployment B: a client navigation to /',
  )
  t.same(await session.consoleErrors(), [], 'no console error, no page error')
}

t.test('after a deploy, the changed chunks as deltas against the ones the browser kept; the page works', (t) =>
  returningVisit(t, false),
)
t.test('the same with dcz alone', async (t) => {
  if (suite.engine !== 'chromium') {
    t.comment(`${suite.engine} names no dictionary coding: nothing more to see`)
    return
  }
  await returningVisit(t, true)
})
