import t from 'tap'
import { build } from '../helpers/app.ts'
import { testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'

t.test('one access line per request, with method, url, route, status, ms and reqId', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const response = await app.inject(testGuidesPath)
  const lines = logs().filter((line) => line.msg === 'request completed')
  t.equal(lines.length, 1)
  const line = lines[0]!
  t.equal(line.method, 'GET')
  t.equal(line.url, testGuidesPath)
  t.equal(line.route, testGuidesPath)
  t.equal(line.statusCode, 200)
  t.type(line.ms, 'number')
  t.equal(line.reqId, response.headers['x-request-id'])
  t.notOk(
    logs().some((entry) => entry.msg === 'incoming request'),
    "Fastify's own two lines are off",
  )
})

t.test('a well-formed x-request-id becomes the reqId and is echoed back', async (t) => {
  const { app, logs } = await build(t)
  const response = await app.inject({ url: '/api/health', headers: { 'x-request-id': 'edge-42.a_b' } })
  t.equal(response.headers['x-request-id'], 'edge-42.a_b')
  t.ok(logs().some((line) => line.msg === 'request completed' && line.reqId === 'edge-42.a_b'))
})

t.test('a malformed x-request-id is replaced by a generated one', async (t) => {
  const { app } = await build(t)
  for (const hostile of ['a b', 'x'.repeat(65), '"}\n{"level":60', '../etc', '']) {
    const response = await app.inject({ url: '/api/health', headers: { 'x-request-id': hostile } })
    const echoed = response.headers['x-request-id']
    t.not(echoed, hostile, JSON.stringify(hostile))
    t.match(echoed, /^[0-9a-f-]{36}$/, 'a UUID instead')
  }
})

t.test('cookie, authorization and secret query values never reach the log', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  app.log.info(
    {
      req: {
        method: 'GET',
        url: '/x?token=planted-token-1',
        headers: { cookie: 'sid=planted-cookie', authorization: 'Bearer planted-bearer' },
      },
    },
    'request seen',
  )
  await app.inject({
    url: `${testGuidesPath}?token=planted-token-2&page=2`,
    headers: { cookie: 'sid=planted-cookie', authorization: 'Bearer planted-bearer' },
  })
  const text = JSON.stringify(logs())
  for (const secret of ['planted-cookie', 'planted-bearer', 'planted-token-1', 'planted-token-2']) {
    t.notMatch(text, secret, `${secret} is not logged`)
  }
  const access = logs().find((line) => line.msg === 'request completed')
  t.equal(access?.url, `${testGuidesPath}?token=[Redacted]&page=2`, 'the rest of the URL stays readable')
})

t.test('every line of a request carries its reqId', async (t) => {
  const { app, logs } = await build(t)
  const response = await app.inject({ url: '/no-such-page', headers: { 'x-request-id': 'trace-me' } })
  t.equal(response.statusCode, 404)
  const lines = logs().filter((line) => line.reqId === 'trace-me')
  t.ok(lines.length >= 1)
  t.notOk(logs().some((line) => line.msg === 'request completed' && line.reqId !== 'trace-me'))
})

t.test('router-level failures get the request id and their access line too', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  // An over-long parameter of a page's route is the router's 404.
  for (const [url, status] of [
    ['/%', 400],
    [testGuidePath('a'.repeat(500)), 404],
  ] as const) {
    const response = await app.inject({ url, headers: { 'x-request-id': `bad-${status}` } })
    t.equal(response.statusCode, status, url)
    t.equal(response.headers['x-request-id'], `bad-${status}`)
    const lines = logs().filter((line) => line.msg === 'request completed' && line.reqId === `bad-${status}`)
    t.equal(lines.length, 1, `one access line for ${url.slice(0, 20)}`)
    t.equal(lines[0]?.statusCode, status)
  }
})
