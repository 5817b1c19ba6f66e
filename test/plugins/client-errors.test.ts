import t from 'tap'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { clientErrorLimits } from '../../config/client-errors.ts'
import { build } from '../helpers/app.ts'

const path = '/api/client-errors'

const report = {
  source: 'boundary',
  message: 'TypeError: x is undefined',
  stack: 'TypeError: x is undefined\n    at Page (http://localhost/_next/static/chunks/page.js:1:10)',
  url: 'http://localhost:3000/some/page?token=abc&tab=2',
  digest: 'a1b2c3d4e5',
}

t.test('a report is logged once through pino, under clientError, with the user agent; 204', async (t) => {
  const { app, logs } = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: path,
    payload: report,
    headers: { 'user-agent': 'Mozilla/5.0 (test)' },
  })
  t.equal(response.statusCode, 204)
  t.equal(response.body, '')
  const lines = logs().filter((line) => line.msg === 'client error reported')
  t.equal(lines.length, 1)
  const line = lines[0]!
  t.equal(line.level, 40, 'warn')
  t.equal(line.reqId, response.headers['x-request-id'])
  t.same(line.clientError, {
    source: 'boundary',
    message: 'TypeError: x is undefined',
    stack: 'TypeError: x is undefined     at Page (http://localhost/_next/static/chunks/page.js:1:10)',
    url: 'http://localhost:3000/some/page?token=[Redacted]&tab=2',
    digest: 'a1b2c3d4e5',
  })
  t.equal(line.userAgent, 'Mozilla/5.0 (test)')
})

t.test('a report cannot forge log fields or lines', async (t) => {
  const { app, logs } = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'user-agent': 'evil\n{"level":60,"msg":"forged"}' },
    payload: {
      source: 'onerror',
      message: 'boom","level":60,"reqId":"forged-id\n{"level":60,"msg":"forged line"}\u2028',
      url: 'http://localhost:3000/\r\n{"level":60}',
      level: 60,
      reqId: 'forged-id',
      msg: 'forged',
      time: 0,
    },
  })
  t.equal(response.statusCode, 204, 'unknown fields are dropped, not logged')
  const forgedLines = logs().filter(
    (line) => line.msg !== 'client error reported' && JSON.stringify(line).includes('forged'),
  )
  t.same(forgedLines, [], 'no line of its own')
  const line = logs().find((entry) => entry.msg === 'client error reported')!
  t.equal(line.level, 40)
  t.equal(line.reqId, response.headers['x-request-id'])
  t.same(Object.keys(line.clientError as object).sort(), ['message', 'source', 'url'])
  const logged = line.clientError as { message: string; url: string }
  t.notMatch(logged.message, /[\n\r\u2028]/, 'one line')
  t.notMatch(logged.url, /[\n\r]/)
  t.notMatch(line.userAgent, /\n/)
  t.notOk(
    logs().some((entry) => entry.level === 60),
    'no fatal line',
  )
})

t.test('bad bodies are 400, in JSON by the table', async (t) => {
  const { app, logs } = await build(t)
  const bad = [
    {},
    { ...report, source: 'console' },
    { ...report, message: '' },
    { ...report, message: 'x'.repeat(clientErrorLimits.messageMaxLength + 1) },
    { ...report, stack: 'x'.repeat(clientErrorLimits.stackMaxLength + 1) },
    { ...report, url: 'javascript:alert(1)' },
    { ...report, digest: 'not a digest!' },
    ['an', 'array'],
  ]
  for (const payload of bad) {
    const response = await app.inject({ method: 'POST', url: path, payload })
    t.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 80))
    t.match(response.json(), { statusCode: 400, error: 'Bad Request' })
    t.equal(response.headers['cache-control'], 'no-store')
  }
  const broken = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json' },
    payload: '{"source":',
  })
  t.equal(broken.statusCode, 400, 'malformed JSON')
  t.notOk(
    logs().some((line) => line.msg === 'client error reported'),
    'nothing bad was logged as a report',
  )
})

t.test('anything but JSON is 415; a big body is 413', async (t) => {
  const { app } = await build(t)
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    const response = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': type },
      payload: JSON.stringify(report),
    })
    t.equal(response.statusCode, 415, type)
    t.match(response.json(), { statusCode: 415, error: 'An unexpected error has occurred' })
  }
  const big = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ ...report, stack: 'x'.repeat(clientErrorLimits.bodyLimitBytes) }),
  })
  t.equal(big.statusCode, 413)
  t.match(big.json(), {
    statusCode: 413,
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    error: 'An unexpected error has occurred',
  })
})

t.test('a flood from one client gets 429; another client is still heard', async (t) => {
  const { app, logs } = await build(t)
  const send = (remoteAddress: string) => app.inject({ method: 'POST', url: path, payload: report, remoteAddress })
  for (let index = 0; index < clientErrorLimits.maxPerWindow; index += 1) {
    const response = await send('203.0.113.7')
    t.equal(response.statusCode, 204, `report ${index + 1}`)
  }
  const flooded = await send('203.0.113.7')
  t.equal(flooded.statusCode, 429)
  t.match(flooded.json(), {
    statusCode: 429,
    code: 'COURIER_ERR_CLIENT_ERROR_RATE_LIMITED',
    error: 'An unexpected error has occurred',
  })
  t.ok(flooded.headers['retry-after'], 'says when to retry')
  t.equal(flooded.headers['cache-control'], 'no-store')
  const other = await send('203.0.113.8')
  t.equal(other.statusCode, 204, 'the limit is per client')
  t.equal(logs().filter((line) => line.msg === 'client error reported').length, clientErrorLimits.maxPerWindow + 1)
  const page = await app.inject({ url: '/', remoteAddress: '203.0.113.7' })
  t.equal(page.statusCode, 200, 'the limit is scoped to the reports')
})

t.test(
  'a report whose connection is gone before the rate limiter runs is dropped quietly, never a server failure',
  async (t) => {
    const { app, logs } = await build(t)
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    // A chunked body that breaks right after the head: Node answers 400 and destroys the socket while the route's hooks
    // still run, and the sender's address is then unknown (`request.ip` undefined) when the rate limiter asks for it.
    const request = `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`
    for (let index = 0; index < 20; index += 1) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(request))
        socket.resume()
        socket.on('close', () => resolve())
        socket.on('error', () => resolve())
      })
    }
    const served = await app.inject({ method: 'POST', url: path, payload: report, remoteAddress: '203.0.113.20' })
    t.equal(served.statusCode, 204, 'reports still go through')
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.same(
      logs().filter((line) => line.level >= 50),
      [],
      'nothing logged at error level',
    )
  },
)

t.test(
  'TRUST_PROXY=true: one warn line at start saying any client can then pick its address; none for a list of proxies',
  async (t) => {
    const trustingAll = await build(t, { TRUST_PROXY: 'true' })
    const warnings = trustingAll
      .logs()
      .filter((line) => line.msg === 'TRUST_PROXY=true trusts every peer: X-Forwarded-For is taken from any client')
    t.equal(warnings.length, 1, 'one line')
    t.equal(warnings[0]?.level, 40, 'warn')
    t.match(String(warnings[0]?.consequence), /client-report rate limit/, 'it names what a client can get past')
    t.match(String(warnings[0]?.consequence), /guess REVALIDATE_TOKEN without limit/, 'the token guesses among them')
    t.match(String(warnings[0]?.consequence), /lock its calls out/, 'and the lockout of the operator')
    // The consequence, for real: one client rotating X-Forwarded-For is 21 clients to the limit.
    for (let index = 0; index <= clientErrorLimits.maxPerWindow; index++) {
      const response = await trustingAll.app.inject({
        method: 'POST',
        url: path,
        payload: report,
        headers: { 'x-forwarded-for': `198.51.100.${index + 1}` },
      })
      t.equal(response.statusCode, 204, `report ${index + 1} from a "new" address`)
    }
    for (const env of [{}, { TRUST_PROXY: '127.0.0.1' }, { TRUST_PROXY: '1' }] as Array<Record<string, string>>) {
      const built = await build(t, env)
      t.notOk(
        built.logs().some((line) => line.msg.startsWith('TRUST_PROXY=true')),
        `no such line with ${JSON.stringify(env)}`,
      )
    }
  },
)
