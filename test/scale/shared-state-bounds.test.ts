/**
 * What Courier writes to Redis is bounded (docs/content.md "What Redis holds"): nginx with deploy/nginx/ in front of
 * three Courier processes (the compiled server, as `npm start` runs it) sharing one redis-server. 10,000 requests for
 * distinct page instances that do not exist go through nginx: each a 404, no page version written, Redis's keys
 * grow by at most 100, and a shared image and a revalidation across the fleet work as before. Every key Courier
 * wrote has a time to live. Run by `npm run test:scale`.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { Redis } from 'ioredis'
import { Agent, request } from 'undici'
import { revalidation } from '../../config/content.ts'
import { defaultDistDir } from '../../config/env.ts'
import { publicSitePages } from '../helpers/page-table.ts'
import { projectRoot, startServer, type ServerProcess } from '../reliability/server-process.ts'
import { startNginxInFront, startRedis, waitFor } from './processes.ts'

const token = 'shared-state-bounds-token-0123456789abcdef'
const missingRequests = 10_000
const concurrency = 16

const redis = await startRedis(t)
const observer = new Redis(redis.url)
t.teardown(() => observer.disconnect())
const distDir = path.join(projectRoot, defaultDistDir(false))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const env = { REDIS_URL: redis.url, REVALIDATE_TOKEN: token, TRUST_PROXY: '127.0.0.1' }
const instances: ServerProcess[] = []
for (let index = 0; index < 3; index += 1) instances.push(await startServer(t, { env, keepAccessLines: false }))
await waitFor('every instance connected to Redis', () =>
  instances.every((one) => one.logs().some((line) => /redis connected/.test(line.msg))),
)
const { origin } = await startNginxInFront(t, { distDir, deploymentId, servers: instances.map((one) => one.port) })
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 })
t.teardown(() => agent.close())

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown> }> {
  const response = await request(url, { dispatcher: agent, headers })
  await response.body.dump()
  return { status: response.statusCode, headers: response.headers }
}

t.test('10,000 distinct missing page instances through nginx: 404s, no page version, Redis as it was', async (t) => {
  // A kept page with a parameter, from the page table: its loader answers not found for an instance that is not there.
  const pages = publicSitePages
  const page = pages.find((candidate) => candidate.kind === 'static' && candidate.path.includes(':'))
  if (!page) return t.fail('the site has no static page with a parameter to ask for missing instances of')
  const missing = (index: number) => page.path.replace(/:(\w+)/g, `no-such-${index}-$1`)
  // The fleet's ordinary keys first: kept pages, a shared image, the revalidation state.
  for (const fixed of pages.filter((candidate) => !candidate.path.includes(':')))
    t.equal((await get(`${origin}${fixed.path}`)).status, 200)
  const image = `/images/${(await readdir(path.join(projectRoot, 'client', 'public', 'images'))).find((name) => name.endsWith('.jpg'))}`
  const imageUrl = `${origin}/_next/image?url=${encodeURIComponent(image)}&w=640`
  t.equal((await get(imageUrl, { accept: 'image/webp' })).status, 200)
  const imageKeys = async () => (await observer.keys('courier:image:*')).length
  // Written after the answer: wait for it.
  for (let wait = 0; wait < 200 && (await imageKeys()) === 0; wait++)
    await new Promise((resolve) => setTimeout(resolve, 25))
  const sharedImages = await imageKeys()
  t.ok(sharedImages > 0, 'the optimized image is shared')
  const keysBefore = await observer.dbsize()

  const statuses = new Map<number, number>()
  let next = 0
  const startedAt = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < missingRequests; index = next++) {
        const { status } = await get(`${origin}${missing(index)}`)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }),
  )
  const seconds = (performance.now() - startedAt) / 1000
  t.same([...statuses], [[404, missingRequests]], 'each a 404')
  const grown = (await observer.dbsize()) - keysBefore
  t.comment(
    `${missingRequests} missing page instances in ${seconds.toFixed(1)} s through nginx; Redis keys grew by ${grown}`,
  )
  t.ok(grown <= 100, `Redis keys grew by ${grown}, at most 100`)
  t.equal(
    (await observer.keys('courier:page:*')).filter((key) => key.includes('no-such-')).length,
    0,
    'no version of a missing page',
  )

  t.equal(await imageKeys(), sharedImages, 'the shared image is still there')
  t.equal((await get(imageUrl, { accept: 'image/webp' })).status, 200)
  const revalidated = await request(`${origin}${revalidation.path}`, {
    dispatcher: agent,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tags: ['none'] }),
  })
  t.equal(revalidated.statusCode, 200)
  t.match(await revalidated.body.json(), { instances: 3, alive: 3 }, 'a revalidation reaches every instance as before')

  const keys = await observer.keys('*')
  for (const key of keys) t.ok((await observer.pttl(key)) > 0, `${key} has a time to live`)
})
