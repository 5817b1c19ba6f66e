/**
 * Sessions in a real redis-server (SESSION_REDIS_URL, docs/sessions.md), through the whole app and the test build's
 * per-user page: two instances share a session; when Redis goes, a page that reads the session shows nobody (never a
 * 5xx) and a sign-in is a 503 with Retry-After; when it is back, sessions work again.
 */
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { build } from '../helpers/app.ts'
import { testPage } from '../helpers/page-table.ts'
import { testRoutes } from '../helpers/site-pages.ts'
import { startRedis } from '../scale/processes.ts'
import sessions from '../../plugins/sessions.ts'
import errorsPlugin from '../../plugins/errors.ts'
import { pageRequestOf } from '../../src/pages/page-request.ts'
import { sessions as limits } from '../../config/sessions.ts'

const secret = 'q8Zr3LmX0vTn5YwB7cKd2HsJ9fGp4AeU'

async function instance(t: Test, redisUrl: string) {
  const fastify = Fastify()
  t.teardown(() => fastify.close())
  await fastify.register(errorsPlugin)
  await fastify.register(sessions, { secret, redisUrl })
  fastify.post('/api/sign-in', async (request, reply) => {
    await pageRequestOf(request, reply).session.signIn('ada')
    return { ok: true }
  })
  fastify.get('/api/who', async (request, reply) => ({
    userId: (await pageRequestOf(request, reply).session.userId()) ?? null,
  }))
  return fastify
}

function cookieOf(response: { headers: Record<string, unknown> }): string {
  const set = ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? [])
  return set.find((line) => line.startsWith(`${limits.cookieName}=`))!.split(';')[0]!
}

t.test('two instances share a session; losing Redis signs nobody in and breaks no page', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = [await instance(t, redis.url), await instance(t, redis.url)]
  const cookie = cookieOf(await a.inject({ method: 'POST', url: '/api/sign-in' }))
  t.same(
    (await b.inject({ url: '/api/who', headers: { cookie } })).json(),
    { userId: 'ada' },
    'the other instance knows it',
  )

  await redis.stop()
  const who = await b.inject({ url: '/api/who', headers: { cookie } })
  t.equal(who.statusCode, 200, 'reading a session while Redis is down: no 5xx')
  t.same(who.json(), { userId: null }, 'nobody')
  const signIn = await a.inject({ method: 'POST', url: '/api/sign-in' })
  t.equal(signIn.statusCode, 503, 'writing one: 503')
  t.equal(signIn.headers['retry-after'], String(limits.storeDownRetryAfterS))
  t.equal(signIn.json().code, 'COURIER_ERR_SESSION_STORE_DOWN')

  await redis.start()
  let back = false
  for (let attempt = 0; attempt < 50 && !back; attempt++) {
    back = (await a.inject({ method: 'POST', url: '/api/sign-in' })).statusCode === 200
    if (!back) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok(back, 'sessions work again once Redis is back')
})

t.test("the whole app: each visitor's own page from their session cookie", async (t) => {
  const redis = await startRedis(t)
  const env = { ...testRoutes, SESSION_SECRET: secret, SESSION_REDIS_URL: redis.url }
  const { app } = await build(t, env)
  const path = testPage('test-visitor').path
  const page = await app.inject({ url: path, headers: { cookie: 'visitor=grace' } })
  t.match(page.body, '<span data-testid="visitor">grace</span>', 'a cookie the page reads')
  await redis.stop()
  const down = await app.inject({ url: path, headers: { cookie: `${limits.cookieName}=s%3Aabc.def; visitor=ada` } })
  t.equal(down.statusCode, 200, 'a page of a visitor with a session cookie while Redis is down: no 5xx')
})
