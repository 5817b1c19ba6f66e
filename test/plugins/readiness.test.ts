import t from 'tap'
import { build, buildUnready } from '../helpers/app.ts'

t.test('GET /api/ready: 503 starting before the server listens, 200 once it does, uncached', async (t) => {
  const { app } = await buildUnready(t)
  await app.ready()
  const before = await app.inject('/api/ready')
  t.equal(before.statusCode, 503, 'not ready before listening')
  t.same(before.json(), { status: 'starting' })
  t.equal(before.headers['cache-control'], 'no-store')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const after = await app.inject('/api/ready')
  t.equal(after.statusCode, 200)
  t.same(after.json(), { status: 'ready' })
  t.equal(after.headers['cache-control'], 'no-store')
  const health = await app.inject('/api/health')
  t.equal(health.statusCode, 200, 'liveness does not wait for listening')
})

t.test('GET /api/ready: 503 once the server starts draining, over a kept-alive connection', async (t) => {
  const { app } = await buildUnready(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const { Agent, request } = await import('undici')
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 })
  t.teardown(() => agent.close())
  const origin = `http://127.0.0.1:${address.port}`
  const first = await request(`${origin}/api/ready`, { dispatcher: agent })
  t.equal(first.statusCode, 200)
  await first.body.text()
  // A request in flight (a slow page would do; a pending body keeps the server in close) is not needed: preClose
  // runs at once and the listener stops, but the kept-alive socket still carries one more request.
  const closing = app.close()
  const during = await request(`${origin}/api/ready`, { dispatcher: agent })
  t.equal(during.statusCode, 503, 'draining')
  t.match(await during.body.text(), /closing|draining|shutting/i)
  await closing
})

t.test('the trusted proxy list decides whose X-Forwarded-For counts', async (t) => {
  const seen: string[] = []
  for (const trustProxy of ['127.0.0.1', '10.0.0.0/8', '1', 'false']) {
    const { app } = await buildUnready(t, { TRUST_PROXY: trustProxy })
    app.get('/__ip', async (request) => request.ip)
    await app.ready()
    const response = await app.inject({
      url: '/__ip',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    })
    seen.push(response.body)
  }
  t.same(seen, ['203.0.113.9', '127.0.0.1', '203.0.113.9', '127.0.0.1'])
})

t.test('other methods on /api/ready are not found as JSON', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/ready' })
  t.equal(response.statusCode, 404)
})
