/**
 * Overload (docs/reliability.md): the server's event loop is saturated on command (the inspectable entry blocks it in slices
 * longer than a sample, a turn of the loop between them) while clients keep asking. New requests get 503 with
 * Retry-After, from the status-title table; liveness stays up; once the saturation ends the server serves again by
 * itself, and the time that takes is measured (printed, not asserted: this machine's speed is not the product's).
 */
import http from 'node:http'
import t from 'tap'
import { serverLimits } from '../../config/server.ts'
import { inspectableEntry, startServer } from './server-process.ts'
import type { SaturationReport } from './inspectable-server.ts'

/**
 * Ticks of 4 s, over the 3 s mean delay that sheds (config/server.ts). The first sample still holds the quiet ticks
 * from before, the second (5 s later) only these: 16 s cover it with a turn of the loop to spare.
 */
const saturation = { durationMs: 16_000, sliceMs: 4_000 }
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

interface Answer {
  status: number
  retryAfter: string | null
  body: string
}

/**
 * GET on a connection of its own: a keep-alive socket the server closes as idle while its loop is stuck would be
 * reset under a reused request, and this test is about the server's answers, not about client retries.
 */
function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { connection: 'close' } }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (text: string) => (body += text))
      response.on('end', () => {
        const retryAfter = response.headers['retry-after']
        resolve({ status: response.statusCode ?? 0, retryAfter: retryAfter ?? null, body })
      })
      response.on('error', reject)
    })
    request.on('error', reject)
    request.setTimeout(30_000, () => request.destroy(new Error('test request timed out')))
  })
}

interface Seen {
  path: string
  status: number
  retryAfter: string | null
  body: string
}

t.test('a saturated event loop sheds new requests with 503 and Retry-After, then recovers by itself', async (t) => {
  const server = await startServer(t, { entry: inspectableEntry, env: { COURIER_TEST_ROUTES: 'true' } })
  t.equal((await get(`${server.origin}/`)).status, 200, 'serves before')

  const seen: Seen[] = []
  let saturated = true
  /** One client asking `path` again and again while the loop is saturated. */
  async function keepAsking(path: string): Promise<void> {
    while (saturated) {
      seen.push({ path, ...(await get(`${server.origin}${path}`)) })
      await sleep(50)
    }
  }
  // A kept page, a page rendered per request (the test build's partly prerendered one), the API.
  const clients = ['/', '/__test/partial', '/api/image-widths', '/api/health'].map(keepAsking)
  const report = await server.command<SaturationReport>(
    { command: 'saturate', ...saturation },
    saturation.durationMs + 30_000,
  )
  const saturationEnded = performance.now()
  saturated = false
  await Promise.all(clients)
  t.comment(`saturated for ${report.durationMs} ms in ${report.slices} slices; ${seen.length} requests meanwhile`)

  const shedPage = seen.find((entry) => entry.status === 503 && entry.path === '/')
  t.ok(shedPage, 'a page request was shed')
  t.equal(shedPage?.retryAfter, String(serverLimits.overloadRetryAfterSeconds), 'with Retry-After')
  t.match(shedPage?.body, '<title>503: An unexpected error has occurred</title>', 'and the error page')
  const shedApi = seen.find((entry) => entry.status === 503 && entry.path === '/api/image-widths')
  t.ok(shedApi, 'an API request was shed')
  t.match(shedApi?.body, '"code":"COURIER_ERR_SERVER_OVERLOADED"', 'in JSON with its code')
  t.equal(shedApi?.retryAfter, String(serverLimits.overloadRetryAfterSeconds))
  t.ok(
    seen.every((entry) => entry.status === 200 || entry.status === 503),
    'every answer is 200 or 503',
  )
  t.ok(
    seen.filter((entry) => entry.path === '/api/health').every((entry) => entry.status === 200),
    'liveness answered throughout',
  )

  let recoveryMs: number | undefined
  let shedWhileRecovering = 0
  for (let attempt = 0; attempt < 600 && recoveryMs === undefined; attempt++) {
    const response = await get(`${server.origin}/`)
    if (response.status === 200) recoveryMs = Math.round(performance.now() - saturationEnded)
    else {
      if (response.status === 503) shedWhileRecovering += 1
      await sleep(50)
    }
  }
  t.ok(recoveryMs !== undefined, 'the server serves pages again without outside help')
  t.comment(`recovered ${recoveryMs} ms after the saturation ended`)

  t.ok(
    await server.logLine((line) => line.msg === 'shedding load' && line.level === 40),
    'the episode start is a warn line',
  )
  t.ok(await server.logLine((line) => line.msg === 'load shedding ended' && line.level === 30), 'its end an info line')
  const lines = server.logs()
  t.same(
    lines.filter((line) => line.level >= 50),
    [],
    'no error line: shedding is not a failure',
  )
  const shedAccessLines = lines.filter((line) => line.msg === 'request completed' && line.statusCode === 503)
  const shed = seen.filter((entry) => entry.status === 503).length + shedWhileRecovering
  t.equal(shedAccessLines.length, shed, 'one access line per shed request')
  t.ok(
    shedAccessLines.every((line) => line.level === 40),
    'each at warn',
  )
})
