/**
 * A test-only entry: the same app as src/server.ts (loadConfig -> buildApp -> listen), plus two commands that only
 * the parent test can send, over the child's IPC channel (never an HTTP route):
 * - `heap`: forced garbage collection (needs `--expose-gc`), then the heap and handle counts;
 * - `saturate`: blocks the event loop in slices for a while (one turn of the loop between slices), i.e. an event
 *   loop that is stuck but still answers now and then, the state load shedding exists for.
 * Each command is answered with a message carrying the same `id`. SIGTERM closes the app and exits.
 */
import { pino } from 'pino'
import { loadConfig } from '../../config/env.ts'
import { buildApp } from '../../src/app.ts'
import { loggerOptions } from '../../src/logger.ts'

export type InspectCommand =
  { id: number; command: 'heap' } | { id: number; command: 'saturate'; durationMs: number; sliceMs: number }

export interface HeapReport {
  heapUsed: number
  heapTotal: number
  rss: number
  external: number
  arrayBuffers: number
}

export interface SaturationReport {
  slices: number
  durationMs: number
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

function busyWait(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // blocking on purpose: this is the overload the test asks for
  }
}

async function collectedHeap(): Promise<HeapReport> {
  if (typeof globalThis.gc !== 'function') throw new Error('start the server with --expose-gc to measure its heap')
  // Several rounds with a turn of the loop between them, so finalizers and weak callbacks settle.
  for (let round = 0; round < 4; round++) {
    globalThis.gc()
    await turn()
  }
  const { heapUsed, heapTotal, rss, external, arrayBuffers } = process.memoryUsage()
  return { heapUsed, heapTotal, rss, external, arrayBuffers }
}

/**
 * Every slice runs from a setImmediate callback, so between two slices the loop goes round exactly once: timers
 * (the load monitor's samples) and I/O (the requests that arrived meanwhile), nothing idle that would add short
 * ticks to the samples.
 */
async function saturate(durationMs: number, sliceMs: number): Promise<SaturationReport> {
  const started = performance.now()
  let slices = 0
  while (performance.now() - started < durationMs) {
    await turn()
    busyWait(sliceMs)
    slices += 1
  }
  await turn()
  return { slices, durationMs: Math.round(performance.now() - started) }
}

const config = loadConfig(process.env)
const logger = pino(loggerOptions(config.logLevel))
const app = await buildApp(config, { logger })

process.on('message', function runCommand(message: InspectCommand) {
  const work = message.command === 'heap' ? collectedHeap() : saturate(message.durationMs, message.sliceMs)
  work.then(
    (result) => process.send?.({ id: message.id, result }),
    (error: Error) => process.send?.({ id: message.id, error: error.message }),
  )
})

process.once('SIGTERM', function closeOnSignal() {
  app.close().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'close failed')
      process.exit(1)
    },
  )
})

await app.listen({ port: config.port, host: config.host })
