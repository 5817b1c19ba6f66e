import t from 'tap'
import net from 'node:net'
import { Readable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { imageOptimizer } from '../../config/images.ts'
import { serverLimits } from '../../config/server.ts'
import { build, buildUnready } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'

/**
 * Asks for `path`, then reads one byte per `everyMs` of what arrives, never more (the socket stays paused, so the
 * kernel's buffers fill and the server's writes stall). Resolves once the server has closed its side of the
 * connection (a paused client does not see that itself) with the bytes read and the time the connection lasted.
 */
function slowReader(server: net.Server, path: string, everyMs: number): Promise<{ read: number; lastedMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now()
    let read = 0
    server.once('connection', (serverSide: net.Socket) => {
      serverSide.once('close', () => {
        clearInterval(timer)
        socket.destroy()
        resolve({ read, lastedMs: performance.now() - started })
      })
    })
    const { port } = server.address() as AddressInfo
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      socket.pause()
    })
    socket.on('error', () => undefined)
    const timer = setInterval(() => {
      if (socket.read(1)) read++
    }, everyMs)
  })
}

t.test('a reader at a trickle: backpressure bounds what is buffered, the connection time-out ends it', async (t) => {
  const connectionTimeoutMs = 1000
  const { app, logs } = await buildUnready(t, {}, { limits: { connectionTimeoutMs } })
  // An endless body that makes its bytes only when asked for them: what it made is what the server buffered or sent.
  let produced = 0
  const chunk = Buffer.alloc(64 * 1024, 'x')
  app.get('/endless', async function endless(_request, reply) {
    const body = new Readable({
      read() {
        produced += chunk.length
        this.push(chunk)
      },
    })
    return reply.type('text/plain').send(body)
  })
  await app.ready()
  await listen(app)

  const { read, lastedMs } = await slowReader(app.server, '/endless', 200)
  t.ok(read > 0, 'the reader got some bytes')
  // Without backpressure the body would run to gigabytes within the second: here it stops at the socket buffers.
  t.ok(
    produced < 64 * 1024 * 1024,
    `the body stopped once the socket was full (${(produced / 1024 / 1024).toFixed(1)} MiB made)`,
  )
  t.ok(lastedMs >= connectionTimeoutMs, 'the connection lasted until the time-out')
  const access = logs().find((line) => line.msg === 'request completed' && line.url === '/endless')
  t.match(access, { aborted: true, statusCode: 200 }, 'the abandoned response has its access line')
  t.same(
    logs().filter((line) => line.level >= 50),
    [],
    'nothing logged at error level',
  )
  t.comment(
    `slow reader: ${(produced / 1024 / 1024).toFixed(1)} MiB made, closed by the server after ${Math.round(lastedMs)} ms`,
  )
})

t.test("the connection time-out is Node's socket time-out and outlasts every legitimate silence", async (t) => {
  const { app } = await build(t)
  t.equal(app.server.timeout, serverLimits.connectionTimeoutMs, 'Node enforces the configured socket time-out')
  // A render may wait for its data this long without writing a byte; an image fetch or transform too.
  t.ok(serverLimits.connectionTimeoutMs > serverLimits.renderTimeoutMs)
  t.ok(serverLimits.connectionTimeoutMs > serverLimits.requestTimeoutMs)
  t.ok(serverLimits.connectionTimeoutMs > imageOptimizer.fetchTimeoutMs)
  t.ok(serverLimits.connectionTimeoutMs > imageOptimizer.transformTimeoutS * 1000)
})
