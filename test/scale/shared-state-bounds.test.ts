/**
 * What Courier writes to Redis is bounded (docs/content.md "What Redis holds"), against a real redis-server:
 * requests for page instances that do not exist write no page version, and every key written has a time to live.
 * Run by `npm run test:scale`.
 */
import t from 'tap'
import { Redis } from 'ioredis'
import { loadSite } from '../../src/pages/site.ts'
import { revalidation } from '../../config/content.ts'
import { build } from '../helpers/app.ts'
import { startRedis, waitFor } from './processes.ts'

const token = 'shared-state-bounds-token-0123456789abcdef'

t.test('distinct missing page instances leave Redis as it was; every key Courier wrote has a time to live', async (t) => {
  const redis = await startRedis(t)
  const observer = new Redis(redis.url)
  t.teardown(() => observer.disconnect())
  const { app, logs } = await build(t, { REDIS_URL: redis.url, REVALIDATE_TOKEN: token })
  await waitFor('redis connected', () => logs().some((line) => /redis connected/.test(line.msg)))
  // A kept page with a parameter, from the page table: its loader answers not found for an instance that is not there.
  const { pages } = await loadSite(false)
  const page = pages.find((candidate) => candidate.kind === 'static' && candidate.path.includes(':'))
  if (!page) return t.fail('the site has no static page with a parameter to ask for missing instances of')
  const missing = (index: number) => page.path.replace(/:(\w+)/g, `no-such-${index}-$1`)
  // Kept pages and revalidation state first, so the count below starts from a fleet's ordinary keys.
  for (const path of pages.filter((candidate) => !candidate.path.includes(':')).map((candidate) => candidate.path)) await app.inject(path)
  await app.inject({ method: 'POST', url: revalidation.path, headers: { authorization: `Bearer ${token}` }, payload: { tags: ['none'] } })
  const keysBefore = await observer.dbsize()
  const statuses = new Map<number, number>()
  for (let index = 0; index < 3_000; index++) {
    const { statusCode } = await app.inject(missing(index))
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1)
  }
  t.same([...statuses], [[404, 3_000]], 'each a 404')
  const grown = (await observer.dbsize()) - keysBefore
  t.ok(grown <= 10, `Redis keys grew by ${grown} (at most 10: heartbeats and acknowledgements, no page version)`)
  t.equal((await observer.keys('courier:page:*')).filter((key) => key.includes('no-such-')).length, 0, 'no version of a missing page')
  const keys = await observer.keys('*')
  t.ok(keys.length > 0)
  for (const key of keys) t.ok((await observer.pttl(key)) > 0, `${key} has a time to live`)
})
