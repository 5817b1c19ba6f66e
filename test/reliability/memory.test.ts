/**
 * Memory under load (docs/reliability.md): after a warm-up, three rounds of the load mix, each followed by a checkpoint: heap
 * used after forced GC (the inspectable entry, `--expose-gc`, asked over IPC), open file descriptors and the image
 * cache folder. Heap grows by at most 10 % across the checkpoints; descriptors and the cache flat.
 */
import t from 'tap'
import { runLoad } from './load.ts'
import { inspectableEntry, startServer, type ServerProcess } from './server-process.ts'
import type { HeapReport } from './inspectable-server.ts'
import { buildMix, readMixSources, type Target } from './targets.ts'

const warmUpSeconds = 8
const roundSeconds = 8
const rounds = 3
/** Heap used after GC may grow by at most this from one checkpoint to a later one (10 %, docs/reliability.md). */
const maxHeapDrift = 0.1
/** Sockets the server closes just after the client left may still be open at a checkpoint: this many at most. */
const fdSlack = 4

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

interface Checkpoint {
  heapUsed: number
  fds: number
  cacheFiles: number
  cacheBytes: number
  requests: number
}

/**
 * Leaks show per request, not per concurrent request: 100 connections without pipelining give as many requests
 * per second on this machine as the load test's 1000 in flight, with far shorter event-loop ticks.
 */
async function load(server: ServerProcess, mix: Target[], seconds: number) {
  const report = await runLoad(server.origin, mix, {
    seconds,
    connections: 100,
    pipelining: 1,
    timeoutSeconds: 60,
    drainSeconds: 90,
  })
  const tallies = Object.values(report.perTarget)
  const wrong = tallies.reduce((sum, tally) => sum + tally.wrongStatus + tally.mismatches, 0)
  const samples = tallies.flatMap((tally) => tally.samples).slice(0, 3)
  return { ...report, wrong, diagnosis: { statusCodes: report.statusCodes, timeouts: report.timeouts, samples } }
}

/** The client has closed every connection: wait (bounded) until the server's descriptors stop falling. */
async function settledFds(server: ServerProcess): Promise<number> {
  let fds = await server.openFds()
  for (let wait = 0; wait < 20; wait++) {
    await sleep(100)
    const now = await server.openFds()
    if (now >= fds) return now
    fds = now
  }
  return fds
}

t.test('heap, descriptors and the image cache stay flat under repeated load', async (t) => {
  const server = await startServer(t, {
    entry: inspectableEntry,
    exposeGc: true,
    keepAccessLines: false,
    env: { COURIER_TEST_ROUTES: 'true' },
  })
  const mix = await buildMix(await readMixSources(server.origin))

  const warmUp = await load(server, mix, warmUpSeconds)
  t.equal(warmUp.errors + warmUp.wrong, 0, 'the warm-up is served right', warmUp.diagnosis)

  const checkpoints: Checkpoint[] = []
  for (let round = 1; round <= rounds; round++) {
    const report = await load(server, mix, roundSeconds)
    t.equal(report.errors, 0, `round ${round}: no errors`, report.diagnosis)
    t.equal(report.wrong, 0, `round ${round}: every response right`, report.diagnosis)
    const fds = await settledFds(server)
    const heap = await server.command<HeapReport>({ command: 'heap' })
    const cache = await server.imageCacheSize()
    checkpoints.push({
      heapUsed: heap.heapUsed,
      fds,
      cacheFiles: cache.files,
      cacheBytes: cache.bytes,
      requests: report.responses,
    })
    t.comment(
      `memory checkpoint ${round}: after ${report.responses} requests, heap used ${mib(heap.heapUsed)} ` +
        `(rss ${mib(heap.rss)}), fds ${fds}, image cache ${cache.files} files / ${cache.bytes} bytes`,
    )
  }

  // A leak is growth: each checkpoint against the lowest before it. A heap that shrinks (V8 flushing the bytecode of
  // functions the warm-up ran once, after several GCs) is no leak.
  const heaps = checkpoints.map((checkpoint) => checkpoint.heapUsed)
  const growth = Math.max(
    0,
    ...heaps.map((heap, index) => (index === 0 ? 0 : heap / Math.min(...heaps.slice(0, index)) - 1)),
  )
  t.comment(`heap used after GC: ${heaps.map(mib).join(', ')}; largest growth ${(growth * 100).toFixed(1)} %`)
  t.ok(
    growth <= maxHeapDrift,
    `heap used after GC grows by at most ${maxHeapDrift * 100} % (${(growth * 100).toFixed(1)} %)`,
  )
  const fds = checkpoints.map((checkpoint) => checkpoint.fds)
  t.ok(Math.max(...fds) - Math.min(...fds) <= fdSlack, `open descriptors flat (${fds.join(', ')})`)
  t.same(
    new Set(checkpoints.map((checkpoint) => `${checkpoint.cacheFiles}/${checkpoint.cacheBytes}`)).size,
    1,
    'the image cache folder does not grow on hits',
  )
  t.same(
    server.logs().filter((line) => line.level >= 50),
    [],
    'no error lines in the server log',
  )
})
