/**
 * Sessions (docs/sessions.md) on a bare instance: a signed, HttpOnly, SameSite=Lax cookie naming a session kept
 * server-side; a new one at sign-in, ended at sign-out; a forged, tampered, expired or merely similar cookie is no
 * session; a request without the cookie asks the store nothing and sets no cookie.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import sessions from '../../plugins/sessions.ts'
import { pageRequestOf } from '../../src/pages/page-request.ts'
import { sessions as limits } from '../../config/sessions.ts'

const secret = 'q8Zr3LmX0vTn5YwB7cKd2HsJ9fGp4AeU'

async function app(t: Test, options: { trustProxy?: boolean } = {}): Promise<FastifyInstance> {
  const fastify = Fastify({ trustProxy: options.trustProxy ?? false })
  t.teardown(() => fastify.close())
  await fastify.register(sessions, { secret })
  fastify.post('/sign-in', async (request, reply) => {
    await pageRequestOf(request, reply).session.signIn(String((request.query as { user?: string }).user))
    return { ok: true }
  })
  fastify.post('/sign-out', async (request, reply) => {
    await pageRequestOf(request, reply).session.signOut()
    return { ok: true }
  })
  fastify.get('/who', async (request, reply) => ({
    userId: (await pageRequestOf(request, reply).session.userId()) ?? null,
  }))
  return fastify
}

/** The session cookie a response sets, as `name=value` for the next request. */
function cookieOf(response: { headers: Record<string, unknown> }): string {
  const set = ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? [])
  const session = set.find((line) => line.startsWith(`${limits.cookieName}=`))
  if (!session) throw new Error(`no session cookie in ${JSON.stringify(set)}`)
  return session.split(';')[0]!
}

t.test('a request without the cookie sets none; sign-in sets a signed, HttpOnly, Lax one', async (t) => {
  const fastify = await app(t)
  const anonymous = await fastify.inject('/who')
  t.same(anonymous.json(), { userId: null })
  t.notOk(anonymous.headers['set-cookie'], 'nothing set for a visitor who signed nothing')
  const signedIn = await fastify.inject({ method: 'POST', url: '/sign-in?user=ada' })
  const line = ([] as string[]).concat(signedIn.headers['set-cookie'] as string | string[]).join('\n')
  t.match(line, new RegExp(`^${limits.cookieName}=[^;]+\\.[^;]+;`), 'a signed value')
  t.match(line, /; HttpOnly/i)
  t.match(line, /; SameSite=Lax/i)
  t.match(line, /; Path=\//)
  t.notMatch(line, /; Secure/i, 'not Secure over plain HTTP (it would never come back)')
  const who = await fastify.inject({ url: '/who', headers: { cookie: cookieOf(signedIn) } })
  t.same(who.json(), { userId: 'ada' })
})

t.test('behind a TLS proxy the cookie is Secure', async (t) => {
  const fastify = await app(t, { trustProxy: true })
  const signedIn = await fastify.inject({
    method: 'POST',
    url: '/sign-in?user=ada',
    headers: { 'x-forwarded-proto': 'https' },
  })
  t.match(([] as string[]).concat(signedIn.headers['set-cookie'] as string).join(''), /; Secure/i)
})

t.test('sign-in makes a new session; sign-out ends it server-side', async (t) => {
  const fastify = await app(t)
  const first = cookieOf(await fastify.inject({ method: 'POST', url: '/sign-in?user=ada' }))
  const second = cookieOf(
    await fastify.inject({ method: 'POST', url: '/sign-in?user=grace', headers: { cookie: first } }),
  )
  t.not(second, first, 'a new id at sign-in')
  t.same(
    (await fastify.inject({ url: '/who', headers: { cookie: first } })).json(),
    { userId: null },
    'the old id names nothing',
  )
  t.same((await fastify.inject({ url: '/who', headers: { cookie: second } })).json(), { userId: 'grace' })
  await fastify.inject({ method: 'POST', url: '/sign-out', headers: { cookie: second } })
  t.same(
    (await fastify.inject({ url: '/who', headers: { cookie: second } })).json(),
    { userId: null },
    'replayed after sign-out: nobody',
  )
})

t.test('forged, tampered and look-alike cookies are no session', async (t) => {
  const fastify = await app(t)
  const real = cookieOf(await fastify.inject({ method: 'POST', url: '/sign-in?user=ada' }))
  const [name, value] = real.split('=') as [string, string]
  const cases = [
    `${name}=forged`,
    `${name}=${value.slice(0, -2)}xx`,
    `${name}=${'a'.repeat(value.length)}`,
    `x${name}=${value}`,
    `xsession=1`,
    `session=forged`,
  ]
  for (const cookie of cases) {
    const who = await fastify.inject({ url: '/who', headers: { cookie } })
    t.equal(who.statusCode, 200, cookie)
    t.same(who.json(), { userId: null }, `${cookie}: nobody`)
  }
})
