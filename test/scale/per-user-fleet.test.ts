/**
 * Per-user pages on a fleet (docs/forms.md "Per-user pages", docs/sessions.md): two instances sharing sessions in a
 * Redis of their own, nginx with deploy/nginx/ in front. Three visitors signed in and one without a session ask for
 * the test build's per-user page (its document and its page data), 1,000 requests interleaved over nginx and both
 * instances directly: every answer names its own visitor and no other, and none may be kept or shared by any cache
 * (private, no-store, Vary: Cookie, no ETag, never an nginx cache hit).
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { pageCacheControl } from '../../src/pages/cache-control.ts'
import { testPage } from '../helpers/page-table.ts'
import { projectRoot, startServer } from '../reliability/server-process.ts'
import { startNginxInFront, startRedis } from './processes.ts'

const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const sessionRedis = await startRedis(t)
const env = {
  COURIER_TEST_ROUTES: 'true',
  TRUST_PROXY: '127.0.0.1',
  SESSION_REDIS_URL: sessionRedis.url,
  SESSION_SECRET: 'per-user-fleet-test-secret-0123456789abcdef',
}
const instances = [
  await startServer(t, { env, keepAccessLines: false }),
  await startServer(t, { env, keepAccessLines: false }),
]
const nginx = await startNginxInFront(t, { distDir, deploymentId, servers: instances.map((one) => one.port) })
const visitorPath = testPage('test-visitor').path
const targets = { document: visitorPath, data: `/_next/data/${deploymentId}${visitorPath}.json` }

/** Signs `user` in through nginx: their session cookie, `name=value`. */
async function signIn(user: string): Promise<string> {
  const response = await fetch(`${nginx.origin}/api/__test/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user }),
  })
  if (response.status !== 200) throw new Error(`signing ${user} in answered ${response.status}`)
  return response.headers.get('set-cookie')!.split(';')[0]!
}

t.test('1,000 interleaved requests of three visitors and one without a session: each answer is its own', async (t) => {
  const users = ['ada', 'grace', 'linus']
  const cookies = new Map(await Promise.all(users.map(async (user) => [user, await signIn(user)] as const)))
  const visitors = [...users, 'nobody']
  const origins = [nginx.origin, ...instances.map((one) => one.origin)]
  const wrong: string[] = []
  const counts = { nginx: 0, direct: 0, document: 0, data: 0 }
  let next = 0
  async function worker() {
    for (let index = next++; index < 1_000; index = next++) {
      const visitor = visitors[index % 4]!
      const kind = (index >> 2) % 2 === 0 ? 'document' : 'data'
      const origin = origins[index % 3]!
      const cookie = cookies.get(visitor)
      const response = await fetch(`${origin}${targets[kind]}`, {
        headers: { 'accept-encoding': 'gzip, br', ...(cookie ? { cookie } : {}) },
      })
      const body = await response.text()
      const label = `${index} ${visitor} ${kind} via ${origin === nginx.origin ? 'nginx' : 'an instance'}`
      counts[origin === nginx.origin ? 'nginx' : 'direct'] += 1
      counts[kind] += 1
      const named = kind === 'data' ? (JSON.parse(body) as { pageProps: { visitor: string } }).pageProps.visitor : ''
      const others = visitors.filter((other) => other !== visitor && other !== 'nobody')
      if (response.status !== 200) wrong.push(`${label}: status ${response.status}`)
      else if (kind === 'data' && named !== visitor) wrong.push(`${label}: names ${named}`)
      else if (
        kind === 'document' &&
        !body.includes(`&quot;visitor&quot;:&quot;${visitor}&quot;`) &&
        !body.includes(`"visitor":"${visitor}"`)
      )
        wrong.push(`${label}: its own name is missing`)
      else if (others.some((other) => body.includes(`"${other}"`))) wrong.push(`${label}: names another visitor`)
      if (response.headers.get('cache-control') !== pageCacheControl.dynamic) {
        wrong.push(`${label}: Cache-Control ${response.headers.get('cache-control')}`)
      }
      if (!/\bCookie\b/i.test(response.headers.get('vary') ?? '')) wrong.push(`${label}: no Vary: Cookie`)
      if (response.headers.get('etag')) wrong.push(`${label}: an ETag`)
      if (/HIT|STALE|UPDATING/.test(response.headers.get('x-cache-status') ?? ''))
        wrong.push(`${label}: from nginx's cache`)
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  t.same(wrong.slice(0, 20), [], `no answer wrong (${wrong.length} in all)`)
  t.comment(`answered: ${JSON.stringify(counts)}`)
  t.ok(counts.nginx > 300 && counts.direct > 600, 'both ways were taken')
})
