import Fastify from 'fastify'
import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { serverLimits } from '../../config/server.ts'
import loadShedding from '../../plugins/load-shedding.ts'
import { build } from '../helpers/app.ts'

/**
 * Pressure forced for real: the event loop is blocked in slices (busy-waiting, a turn of the loop between slices),
 * so every sample under-pressure takes sees a delay far over the threshold. Short samples and a low threshold keep
 * the test quick; the production numbers are in config/server.ts.
 */
const testLimits = { loadSampleIntervalMs: 20, maxEventLoopDelayMs: 40 }
const sliceMs = 150
const slices = 8

function busyWait(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // blocking on purpose: this is the overload
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Saturates the loop and sends `request()` after each slice; resolves with every response once all arrived. */
async function underSaturation(request: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse[]> {
  const pending: Promise<LightMyRequestResponse>[] = []
  for (let slice = 0; slice < slices; slice++) {
    busyWait(sliceMs)
    pending.push(request())
    await turn()
  }
  return Promise.all(pending)
}

/** Asks until the server serves the request again (every answer kept in `seen`); the bound only stops a broken
 * server from hanging the test. */
async function untilServed(
  request: () => Promise<LightMyRequestResponse>,
  seen: LightMyRequestResponse[] = [],
): Promise<LightMyRequestResponse> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await request()
    seen.push(response)
    if (response.statusCode !== 503) return response
    await sleep(25)
  }
  throw new Error('the server never served the request again')
}

t.test(
  'a saturated event loop sheds new page requests with 503, Retry-After and the error page; then recovers',
  async (t) => {
    const { app, logs } = await build(t, {}, { limits: testLimits })
    await app.inject('/api/health') // warm: the first request of an app does one-off work
    const responses = await underSaturation(() => app.inject('/'))
    const shed = responses.filter((response) => response.statusCode === 503)
    t.ok(shed.length > 0, `some requests were shed (${shed.length} of ${responses.length})`)
    t.ok(
      responses.every((response) => response.statusCode === 503 || response.statusCode === 200),
      'only 503 or 200',
    )
    const first = shed[0]!
    t.equal(first.headers['retry-after'], String(serverLimits.overloadRetryAfterSeconds))
    t.equal(first.headers['cache-control'], 'no-store')
    t.match(first.headers['content-type'], /^text\/html/)
    t.match(first.body, '<title>503: An unexpected error has occurred</title>', 'the status-title table')
    t.notMatch(first.body, 'Digest', 'nothing failed: no digest')
    t.ok(first.headers['x-request-id'], 'the request id is echoed')

    const again = await untilServed(() => app.inject('/'), responses)
    t.equal(again.statusCode, 200, 'served again without any outside help')
    const shedInAll = responses.filter((response) => response.statusCode === 503).length

    const lines = logs()
    t.same(
      lines.filter((line) => line.level >= 50),
      [],
      'no error line: shedding is not a failure',
    )
    const shedLines = lines.filter((line) => line.msg === 'request completed' && line.statusCode === 503)
    t.equal(shedLines.length, shedInAll, 'one access line per shed request')
    t.ok(
      shedLines.every((line) => line.level === 40 && line.reqId),
      'at warn, with the reqId',
    )
    const started = lines.filter((line) => line.msg === 'shedding load')
    t.ok(started.length >= 1, 'the episode start is logged')
    t.equal(started[0]?.code, 'COURIER_ERR_SERVER_OVERLOADED')
    t.equal(started[0]?.level, 40)
    const ended = lines.filter((line) => line.msg === 'load shedding ended')
    t.equal(ended.length, started.length, 'every episode that started is logged as ended')
    t.equal(
      ended.reduce((sum, line) => sum + Number(line.shed), 0),
      shedInAll,
      'the episodes count every shed request',
    )
  },
)

t.test('API and /_next requests are shed in JSON with the error code; /api/health stays up', async (t) => {
  const { app } = await build(t, {}, { limits: testLimits })
  await app.inject('/api/health')
  const responses = await underSaturation(() => app.inject('/api/image-widths'))
  const shed = responses.find((response) => response.statusCode === 503)
  t.ok(shed, 'an API request was shed')
  t.match(shed?.headers['content-type'], /^application\/json/)
  t.same(shed?.json(), {
    statusCode: 503,
    code: 'COURIER_ERR_SERVER_OVERLOADED',
    error: 'An unexpected error has occurred',
    message: 'An unexpected error has occurred',
  })
  t.equal(shed?.headers['retry-after'], String(serverLimits.overloadRetryAfterSeconds))

  const health = await underSaturation(() => app.inject('/api/health'))
  t.same(
    health.map((response) => response.statusCode),
    health.map(() => 200),
    'liveness is answered throughout',
  )
  const data = await underSaturation(() => app.inject('/_next/data/x/index.json'))
  t.ok(
    data.some((response) => response.statusCode === 503 && response.json().code === 'COURIER_ERR_SERVER_OVERLOADED'),
    'page data is shed in JSON',
  )
  t.equal((await untilServed(() => app.inject('/api/image-widths'))).statusCode, 200)
})

t.test('an idle server sheds nothing', async (t) => {
  const { app, logs } = await build(t)
  for (let request = 0; request < 20; request++) {
    t.equal((await app.inject('/api/image-widths')).statusCode, 200)
    await sleep(5)
  }
  t.same(
    logs().filter((line) => line.msg === 'shedding load'),
    [],
  )
})

t.test('options are checked at register time', async (t) => {
  for (const [name, options] of [
    ['maxEventLoopDelayMs', { maxEventLoopDelayMs: 0, sampleIntervalMs: 1000, retryAfterSeconds: 2 }],
    ['sampleIntervalMs', { maxEventLoopDelayMs: 200, sampleIntervalMs: 5, retryAfterSeconds: 2 }],
    ['retryAfterSeconds', { maxEventLoopDelayMs: 200, sampleIntervalMs: 1000, retryAfterSeconds: Number.NaN }],
  ] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(
      async () => {
        await app.register(loadShedding, options)
        await app.ready()
      },
      { code: 'COURIER_ERR_OPTION_INVALID', message: new RegExp(name) },
      name,
    )
  }
})
