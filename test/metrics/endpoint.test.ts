/**
 * The metrics port (src/metrics/endpoint.ts, opened by plugins/metrics.ts once the site listens): what it answers,
 * and that nothing a scraper does (failing collections, hang-ups, too many connections, a port already taken) reaches
 * the site.
 */
import t from 'tap'
import net from 'node:net'
import { metricsEndpointLimits } from '../../config/metrics.ts'
import { listenMetrics } from '../../src/metrics/endpoint.ts'
import { build, captureLogs, type Built } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { pino } from 'pino'
import { parseExposition, valueOf } from './exposition.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The metrics origin the plugin logged once the site listened. */
async function metricsOrigin(built: Built): Promise<string> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const line = built.logs().find((entry) => entry.msg === 'metrics endpoint listening')
    if (line) return new URL(String(line.address)).origin
    await sleep(25)
  }
  throw new Error('the metrics endpoint never said it listens')
}

/** Resolves once the server closed the socket (or refused it): true when it sent nothing first. */
function closedWithoutData(socket: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    let received = false
    socket.on('data', () => (received = true))
    socket.on('error', () => {})
    socket.on('close', () => resolve(!received))
  })
}

t.test('the plugin opens the port when the site listens: GET and HEAD /metrics, 404 and 405 elsewhere', async (t) => {
  const built = await build(t, { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' })
  const site = await listen(built.app)
  const origin = await metricsOrigin(built)
  t.not(origin, site)

  await fetch(`${site}/`)
  const scrape = await fetch(`${origin}/metrics?ignored=query`)
  t.equal(scrape.status, 200)
  t.equal(scrape.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8', "Prometheus' text format")
  t.equal(scrape.headers.get('cache-control'), 'no-store')
  const samples = parseExposition(await scrape.text())
  t.equal(valueOf(samples, 'courier_http_request_duration_seconds_count', { route: '/', method: 'GET' }), 1)

  const head = await fetch(`${origin}/metrics`, { method: 'HEAD' })
  t.equal(head.status, 200)
  t.equal(await head.text(), '')
  t.equal((await fetch(`${origin}/`)).status, 404)
  t.equal((await fetch(`${origin}/api/health`)).status, 404, 'the site is not served on the metrics port')
  const post = await fetch(`${origin}/metrics`, { method: 'POST', body: 'x' })
  t.equal(post.status, 405)
  t.equal(post.headers.get('allow'), 'GET, HEAD')
  t.equal((await fetch(`${site}/metrics`)).status, 404, 'and /metrics is not served on the site port')
  t.notOk(
    built.logs().some((line) => line.msg === 'request completed' && String(line.url).includes('metrics?')),
    'scrapes are not site requests',
  )

  await built.app.close()
  const refused = await fetch(`${origin}/metrics`).then(
    () => false,
    () => true,
  )
  t.ok(refused, 'the port closes with the site')
})

t.test('a metrics port already taken: an error line, and the site serves on', async (t) => {
  const holder = net.createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => holder.close())
  const takenPort = (holder.address() as net.AddressInfo).port
  const built = await build(t, { METRICS_PORT: String(takenPort) })
  const site = await listen(built.app)
  for (
    let attempt = 0;
    attempt < 400 && !built.logs().some((line) => line.msg.startsWith('metrics endpoint unavailable'));
    attempt++
  )
    await sleep(25)
  const line = built.logs().find((entry) => entry.msg === 'metrics endpoint unavailable: serving without it')
  t.equal(line?.level, 50, 'an error line')
  t.equal(line?.port, takenPort)
  t.match(line?.err, { code: 'EADDRINUSE' })
  t.equal((await fetch(`${site}/`)).status, 200)
})

/** A kept-alive connection that asked once (`HEAD /metrics`, as a client polling the port does) and now idles. */
function idleKeptAlive(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n'))
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
      if (received.includes('\r\n\r\n')) resolve(socket)
    })
    socket.once('error', reject)
    socket.once('close', () => reject(new Error('closed before its answer')))
  })
}

t.test(
  'idle kept-alive clients cannot starve a scrape: over the budget the longest idle connection goes',
  async (t) => {
    const built = await build(t, { METRICS_PORT: '0' })
    const site = await listen(built.app)
    const { hostname, port } = new URL(await metricsOrigin(built))
    t.equal(hostname, '127.0.0.1')
    const held: net.Socket[] = []
    t.teardown(() => held.forEach((socket) => socket.destroy()))
    // Twice the budget, one after the other: each is answered, then stays open and idle.
    for (let index = 0; index < 2 * metricsEndpointLimits.maxConnections; index++) {
      const socket = await idleKeptAlive(Number(port))
      socket.on('error', () => {})
      held.push(socket)
    }
    await sleep(50)
    const open = held.filter((socket) => !socket.destroyed && socket.readyState === 'open')
    t.ok(
      open.length <= metricsEndpointLimits.maxConnections,
      `${open.length} of ${held.length} idle connections still open: the budget holds`,
    )
    t.ok(
      held[0]!.destroyed || held[0]!.readyState !== 'open',
      'the first (idle the longest) was closed for a newer one',
    )

    const startedAt = performance.now()
    const scrape = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2_000) })
    const ms = performance.now() - startedAt
    t.equal(scrape.status, 200, 'the scrape is answered')
    await scrape.text()
    t.ok(ms < 1_000, `promptly (${Math.round(ms)} ms), not after an idle time-out`)
    t.equal((await fetch(`${site}/`)).status, 200, 'the site serves meanwhile')
  },
)

t.test(
  'an idle kept-alive scrape connection is closed before the next scrape of a default Prometheus (every 15 s)',
  async (t) => {
    const { keepAliveTimeoutMs } = metricsEndpointLimits
    if (!t.ok(keepAliveTimeoutMs < 15_000, `idle time-out ${keepAliveTimeoutMs} ms`)) return
    const { stream } = captureLogs()
    const endpoint = await listenMetrics({
      host: '127.0.0.1',
      port: 0,
      contentType: 'text/plain',
      logger: pino({ level: 'info' }, stream),
      collect: async () => 'x 1\n',
    })
    t.teardown(() => endpoint.close())
    const socket = await idleKeptAlive(endpoint.port)
    const idleSince = performance.now()
    await new Promise((resolve) => socket.once('close', resolve))
    const idleMs = performance.now() - idleSince
    t.ok(
      idleMs >= keepAliveTimeoutMs - 100 && idleMs < 15_000,
      `closed by the port after ${Math.round(idleMs)} ms idle`,
    )
  },
)

t.test(
  'listenMetrics: a failing collection is a 503 and a warn line; scrapes at once share one collection',
  async (t) => {
    const { stream, lines } = captureLogs()
    const logger = pino({ level: 'info' }, stream)
    let calls = 0
    let fail = true
    let release!: () => void
    let gate = Promise.resolve()
    const endpoint = await listenMetrics({
      host: '127.0.0.1',
      port: 0,
      contentType: 'text/plain; version=0.0.4; charset=utf-8',
      logger,
      minCollectionIntervalMs: 0,
      async collect() {
        calls += 1
        await gate
        if (fail) throw new Error('a worker did not answer')
        return 'courier_test_total 1\n'
      },
    })
    t.teardown(() => endpoint.close())
    const origin = `http://127.0.0.1:${endpoint.port}`

    const failed = await fetch(`${origin}/metrics`)
    t.equal(failed.status, 503)
    t.equal(failed.headers.get('cache-control'), 'no-store')
    const warn = lines().find((line) => line.msg === 'metrics scrape failed')
    t.equal(warn?.level, 40)
    t.match(warn?.err, { message: 'a worker did not answer' })

    fail = false
    gate = new Promise<void>((resolve) => (release = resolve))
    calls = 0
    const together = Array.from({ length: 5 }, () =>
      fetch(`${origin}/metrics`).then(async (response) => [response.status, await response.text()]),
    )
    while (calls === 0) await sleep(5)
    await sleep(50)
    release()
    t.same(
      await Promise.all(together),
      Array.from({ length: 5 }, () => [200, 'courier_test_total 1\n']),
    )
    t.equal(calls, 1, 'five scrapes in flight, one collection')
    t.equal((await fetch(`${origin}/metrics`)).status, 200, 'the next scrape collects again')
    t.equal(calls, 2)
  },
)

t.test('listenMetrics: a scraper in a loop gets the last collection until the interval has passed', async (t) => {
  const { stream } = captureLogs()
  let calls = 0
  const endpoint = await listenMetrics({
    host: '127.0.0.1',
    port: 0,
    contentType: 'text/plain',
    logger: pino({ level: 'info' }, stream),
    minCollectionIntervalMs: 60_000,
    async collect() {
      calls += 1
      return `courier_test_total ${calls}\n`
    },
  })
  t.teardown(() => endpoint.close())
  const texts = new Set<string>()
  for (let index = 0; index < 20; index++)
    texts.add(await (await fetch(`http://127.0.0.1:${endpoint.port}/metrics`)).text())
  t.same([...texts], ['courier_test_total 1\n'], '20 scrapes, one answer')
  t.equal(calls, 1, 'one collection')
})

t.test('listenMetrics: a scraper that hangs up mid-scrape or sends garbage costs only its socket', async (t) => {
  const { stream, lines } = captureLogs()
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const endpoint = await listenMetrics({
    host: '127.0.0.1',
    port: 0,
    contentType: 'text/plain',
    logger: pino({ level: 'info' }, stream),
    async collect() {
      await gate
      return 'x 1\n'
    },
  })
  t.teardown(() => endpoint.close())
  const hangUp = net.connect(endpoint.port, '127.0.0.1', () => hangUp.end('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'))
  hangUp.on('error', () => {})
  await new Promise((resolve) => hangUp.on('close', resolve))
  release()
  const garbage = net.connect(endpoint.port, '127.0.0.1', () => garbage.write('\x00\x01 not http\r\n\r\n'))
  t.ok(await closedWithoutData(garbage), 'the garbage connection is closed unanswered')
  const after = await fetch(`http://127.0.0.1:${endpoint.port}/metrics`)
  t.equal(after.status, 200, 'the endpoint still answers')
  t.equal(await after.text(), 'x 1\n')
  t.same(
    lines().filter((line) => line.level >= 50),
    [],
    'no error line',
  )
})
