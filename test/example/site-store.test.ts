/**
 * The example's two stores (site/data/site-store.ts) keep the same promises: SQLite in a data folder, and a real
 * redis-server through SITE_REDIS_URL (a fleet on several hosts): a name is taken once, a password checks, feedback
 * is each author's own, newest first, at most `feedbackShown`. Skipped without redis-server outside CI.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { startRedis } from '../scale/processes.ts'

const dataDir = mkdtempSync(path.join(tmpdir(), 'courier-example-store-'))
process.env.DATA_DIR = dataDir
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
const { createAccount, passwordMatches } = await import('../../site/data/accounts.ts')
const { closeSiteStores, feedbackShown, siteStore } = await import('../../site/data/site-store.ts')
const leaveFeedback = (author: string, guide: string, body: string) => siteStore().leaveFeedback(author, guide, body)
const feedbackOf = (author: string) => siteStore().feedbackOf(author)

async function keepsItsPromises(t: Test, prefix: string) {
  const ada = `${prefix}-ada`
  const grace = `${prefix}-grace`
  t.ok(await createAccount(ada, 'a password of ada'), 'an account is made')
  t.notOk(await createAccount(ada, 'another password'), 'a name is taken once')
  t.ok(await passwordMatches(ada, 'a password of ada'), 'its password checks')
  t.notOk(await passwordMatches(ada, 'another password'), 'another does not')
  t.notOk(await passwordMatches(`${prefix}-nobody`, 'a password of ada'), 'a name without an account does not')
  await createAccount(grace, 'a password of grace')
  for (let index = 0; index < feedbackShown + 5; index += 1) await leaveFeedback(ada, 'tides', `note ${index}`)
  await leaveFeedback(grace, 'knots', 'one of grace')
  const ofAda = await feedbackOf(ada)
  t.equal(ofAda.length, feedbackShown, `at most ${feedbackShown}`)
  t.equal(ofAda[0]?.body, `note ${feedbackShown + 4}`, 'newest first')
  t.same(
    (await feedbackOf(grace)).map((item) => item.body),
    ['one of grace'],
    "each author's own",
  )
}

t.test('SQLite in the data folder', async (t) => {
  delete process.env.SITE_REDIS_URL
  await keepsItsPromises(t, 'sqlite')
})

const noRedis =
  spawnSync('redis-server', ['--version']).status !== 0 && process.env.CI !== 'true'
    ? 'redis-server is not installed (apt-get install redis-server)'
    : false

t.test('a shared Redis (SITE_REDIS_URL)', { skip: noRedis }, async (t) => {
  const redis = await startRedis(t)
  process.env.SITE_REDIS_URL = redis.url
  t.teardown(async () => {
    delete process.env.SITE_REDIS_URL
    await closeSiteStores()
  })
  await keepsItsPromises(t, 'redis')
})
