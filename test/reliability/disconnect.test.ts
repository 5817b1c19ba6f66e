import t from 'tap'
import net from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { loadConfig } from '../../config/env.ts'
import { buildApp } from '../../src/app.ts'
import { loggerOptions } from '../../src/logger.ts'
import type { LogLine } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'

// A forced GC without --expose-gc on the command line: the flag, set now, exposes gc to new contexts.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const clients = 1000
const batch = 100

/** Connects, asks for a page that suspends, and destroys the socket as soon as the first bytes arrive. */
function disconnectMidStream(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`)
    })
    socket.once('data', (data: Buffer) => {
      socket.destroy()
      // Only the status line's start, copied out: a slice of the chunk's string would keep the whole chunk alive.
      resolve(data.subarray(0, 12).toString('latin1'))
    })
    socket.once('error', reject)
  })
}

function listenerCount(emitter: NodeJS.EventEmitter): number {
  return emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0)
}

async function settledHeapUsed(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
  }
  return process.memoryUsage().heapUsed
}

function openConnections(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  )
}

async function storm(port: number, count: number): Promise<string[]> {
  const statusLines: string[] = []
  for (let done = 0; done < count; done += batch) {
    const size = Math.min(batch, count - done)
    statusLines.push(
      ...(await Promise.all(Array.from({ length: size }, () => disconnectMidStream(port, '/__test/slow?delay=1500')))),
    )
  }
  return statusLines
}

/** Resolves once every pending test-page timer (1.5 s) has fired and the server holds no connection. */
async function quiet(server: net.Server): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1700))
  for (let tries = 0; tries < 50 && (await openConnections(server)) > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

t.test(
  `${clients} clients that disconnect mid-stream: renders stop, no error logged, listeners and heap flat`,
  async (t) => {
    // Log lines are counted by message, not kept (keeping 1,000 requests' lines would itself grow the heap); lines at
    // error level and above are kept whole.
    const counts = new Map<string, number>()
    const errorLines: LogLine[] = []
    const count = (msg: string) => counts.get(msg) ?? 0
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const text of chunk.toString('utf8').split('\n')) {
          if (!text.trim()) continue
          const line = JSON.parse(text) as LogLine
          const key = line.aborted === true ? `${line.msg} (aborted)` : line.msg
          counts.set(key, count(key) + 1)
          if (line.level >= 50) errorLines.push(line)
        }
        callback()
      },
    })
    const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-test-images-'))
    t.teardown(() => rm(imageCacheDir, { recursive: true, force: true }))
    const config = loadConfig({ LOG_LEVEL: 'debug', IMAGE_CACHE_DIR: imageCacheDir, COURIER_TEST_ROUTES: 'true' })
    const app = await buildApp(config, { logger: pino(loggerOptions(config.logLevel), stream) })
    t.teardown(() => app.close())
    await listen(app)
    const { port } = app.server.address() as AddressInfo

    // Warm-up: the first renders load modules, compile hot code and fill caches.
    await storm(port, 300)
    await quiet(app.server)
    const processListeners = listenerCount(process)
    const serverListeners = listenerCount(app.server)
    const heapBefore = await settledHeapUsed()
    const abortedBefore = count('render aborted: the client closed the connection')
    const abandonedBefore = count('request completed (aborted)')

    const statusLines = await storm(port, clients)
    t.equal(statusLines.filter((line) => line === 'HTTP/1.1 200').length, clients, 'every client saw the page start')
    await quiet(app.server)

    const heapAfter = await settledHeapUsed()
    t.equal(
      count('render aborted: the client closed the connection') - abortedBefore,
      clients,
      'every render was aborted when its client left',
    )
    t.equal(
      count('request completed (aborted)') - abandonedBefore,
      clients,
      'each abandoned request has its access line',
    )
    t.same(errorLines, [], 'nothing logged at error level')
    t.equal(await openConnections(app.server), 0, 'no connection left open')
    t.equal(listenerCount(process), processListeners, 'process listeners flat')
    t.equal(listenerCount(app.server), serverListeners, 'server listeners flat')
    const growth = (heapAfter - heapBefore) / heapBefore
    t.ok(
      growth < 0.1,
      `heap used flat within 10% (${(heapBefore / 1e6).toFixed(1)} MB -> ${(heapAfter / 1e6).toFixed(1)} MB)`,
    )
    t.comment(
      `disconnect storm: ${clients} clients; heap used after GC ${(heapBefore / 1e6).toFixed(1)} MB before, ` +
        `${(heapAfter / 1e6).toFixed(1)} MB after (${(growth * 100).toFixed(1)}%); process listeners ${processListeners}, ` +
        `server listeners ${serverListeners}, open connections ${await openConnections(app.server)}`,
    )
  },
)
