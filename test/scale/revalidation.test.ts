/**
 * Revalidation across instances against a real redis-server on a loopback port: three Courier applications (each
 * the whole app, as buildApp makes it, with its own Redis connections) serve one CONTENT_DIR. A Markdown file is
 * edited, one instance takes POST /api/revalidate, and every instance serves the new document and page data; with
 * Redis stopped a call still answers 200 for its own instance, with a warn line, and nothing answers 5xx. Run by
 * `npm run test:scale` (test/scale/*.test.ts).
 */
import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { revalidation } from '../../config/content.ts'
import { build, type Built } from '../helpers/app.ts'
import { siteContent } from '../helpers/content.ts'
import { Redis } from 'ioredis'
import { startRedis } from './processes.ts'
import { testGuidePath, testRoutes } from '../helpers/site-pages.ts'

const token = 'scale-test-token-0123456789abcdefghij'
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-fleet-content-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

t.test('a revalidation reaches every instance through Redis: each serves the new page and data', async (t) => {
  const redis = await startRedis(t)
  const dir = await contentCopy(t)
  const fleet: Built[] = []
  for (let index = 0; index < 3; index++)
    fleet.push(await build(t, { ...testRoutes, REDIS_URL: redis.url, REVALIDATE_TOKEN: token, CONTENT_DIR: dir }))
  const observer = new Redis(redis.url)
  t.teardown(() => observer.disconnect())
  // Each instance subscribes on a connection of its own, which may come a moment after the shared one.
  const subscribers = async () =>
    Number(((await observer.pubsub('NUMSUB', 'courier:revalidate')) as [string, number])[1])
  await waitFor('every instance subscribed to the revalidation channel', async () => (await subscribers()) === 3)
  const guide = testGuidePath('tide-tables')
  const dataPath = (app: Built['app']) => `/_next/data/${app.deploymentId}${guide}.json`
  for (const { app } of fleet) {
    t.match((await app.inject(guide)).body, 'one of the skills')
    await app.inject(dataPath(app))
  }
  const etagBefore = (await fleet[1]!.app.inject(dataPath(fleet[1]!.app))).headers.etag

  const file = path.join(dir, 'guides', 'tide-tables.md')
  await writeFile(file, (await readFile(file, 'utf8')).replace('one of the skills', 'the first of the skills'))
  const calledAt = performance.now()
  const response = await fleet[0]!.app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}` },
    payload: { paths: [guide] },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.json().instances, 3, 'every instance was listening')
  const answeredAt = performance.now()
  const newOn = async ({ app }: Built) => {
    const [page, data] = await Promise.all([app.inject(guide), app.inject(dataPath(app))])
    return page.body.includes('the first of the skills') && data.body.includes('the first of the skills')
  }
  await waitFor(
    'every instance serving the new version',
    async () => (await Promise.all(fleet.map(newOn))).every(Boolean),
    10_000,
  ).catch((error: unknown) => {
    t.comment(
      JSON.stringify(
        fleet.map(({ logs }) =>
          logs()
            .filter((line) => /revalidat|regenerat/.test(line.msg))
            .map((line) => line.msg),
        ),
      ),
    )
    throw error
  })
  // Measured and reported, bounded above by the wait (10 s): the 1 s goal holds on an idle machine; a loaded shared
  // one (three full apps rendering in one process) says nothing about it.
  const everyNewMs = performance.now() - answeredAt
  t.pass(`every instance served the new document and data ${everyNewMs.toFixed(1)} ms after the 200`)
  t.comment(
    `call answered in ${(answeredAt - calledAt).toFixed(1)} ms; every instance new ${everyNewMs.toFixed(1)} ms after it`,
  )
  t.not(
    (await fleet[1]!.app.inject(dataPath(fleet[1]!.app))).headers.etag,
    etagBefore,
    'a new ETag on another instance',
  )
  const regenerations = (built: Built) =>
    built.logs().filter((line) => line.msg === 'page regenerated' && line.path === guide)
  t.same(
    fleet.map((built) => regenerations(built).length),
    [1, 1, 1],
    'each instance regenerated its kept page once',
  )
  t.equal(
    fleet.flatMap(regenerations).filter((line) => line.loaderRan === true).length,
    1,
    'the loader ran once for the whole fleet',
  )
  const etags = await Promise.all(fleet.map(async ({ app }) => (await app.inject(dataPath(app))).headers.etag))
  t.equal(new Set(etags).size, 1, 'every instance serves the same page data bytes (one ETag)')

  // An instance that joins now, and never rendered the guide, serves the fleet's version without running the loader.
  const late = await build(t, { ...testRoutes, REDIS_URL: redis.url, REVALIDATE_TOKEN: token, CONTENT_DIR: dir })
  await waitFor('the new instance subscribed', async () => (await subscribers()) === 4)
  t.equal((await late.app.inject(dataPath(late.app))).headers.etag, etags[0], 'a new instance: the same ETag')
  t.match((await late.app.inject(guide)).body, 'the first of the skills')

  // A revalidation whose message no instance heard (logged and numbered, never published): each finds it by the
  // newest number within the version check, and serves the new version.
  await writeFile(file, (await readFile(file, 'utf8')).replace('the first of the skills', 'keeps the document it has'))
  const seq = await observer.incr('courier:revalidate-seq')
  const epoch = await observer.get('courier:revalidate-epoch')
  await observer.lpush(
    'courier:revalidate-log',
    JSON.stringify({ seq, epoch, paths: [guide], tags: [], from: 'elsewhere' }),
  )
  const heardAt = performance.now()
  await waitFor('every instance catching up with the unheard revalidation', async () =>
    (
      await Promise.all(
        [...fleet, late].map(async ({ app }) =>
          (await app.inject(dataPath(app))).body.includes('keeps the document it has'),
        ),
      )
    ).every(Boolean),
  )
  // How soon is a figure for the bench and the note (a busy machine stretches it), not a pass or fail here.
  t.comment(
    `caught up ${(performance.now() - heardAt).toFixed(0)} ms after the log entry (version check every ${revalidation.versionCheckMs} ms)`,
  )
  t.ok(
    fleet[2]!.logs().some((line) => line.msg === 'revalidations missed: catching up from the log'),
    'said in the log',
  )
  t.equal(
    [...fleet, late].flatMap(regenerations).filter((line) => line.loaderRan === true).length,
    2,
    'again one loader run, fleet-wide',
  )

  await redis.stop()
  await waitFor('redis loss noticed', () => fleet[0]!.logs().some((line) => /redis connection lost/.test(line.msg)))
  const alone = await fleet[0]!.app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}` },
    payload: { tags: ['guides'] },
  })
  t.equal(alone.statusCode, 200, 'Redis gone: the call still succeeds')
  t.equal(alone.json().instances, 1, 'for this instance only')
  t.ok(
    fleet[0]!.logs().some((line) => line.level === 40 && /revalidation applied to this instance only/.test(line.msg)),
    'with a warn line',
  )
  for (const { app } of [...fleet, late]) t.equal((await app.inject(guide)).statusCode, 200, 'no 5xx')

  // Redis comes back empty: its revalidation numbers start again from 1, below what every instance applied. Each
  // instance sees the new epoch, and the next revalidation reaches every one of them.
  const everyone = [...fleet, late]
  const restoredBefore = everyone.map(
    ({ logs }) => logs().filter((line) => /redis connection restored/.test(line.msg)).length,
  )
  await redis.start()
  await waitFor('every instance back on redis', () =>
    everyone.every(
      ({ logs }, index) =>
        logs().filter((line) => /redis connection restored/.test(line.msg)).length > restoredBefore[index]!,
    ),
  )
  await waitFor('every instance subscribed again', async () => (await subscribers()) === 4)
  await waitFor('every instance alive in the new state', async () => (await observer.zcard('courier:instances')) === 4)
  await writeFile(file, (await readFile(file, 'utf8')).replace('keeps the document it has', 'holds on to its document'))
  const afterRestart = await fleet[1]!.app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}` },
    payload: { paths: [guide] },
  })
  t.equal(afterRestart.statusCode, 200)
  t.match(
    afterRestart.json(),
    { instances: 4, alive: 4 },
    'every instance alive applied it: the count is of acknowledgements',
  )
  const restartedAt = performance.now()
  await waitFor(
    'every instance serving the page revalidated after the restart',
    async () =>
      (
        await Promise.all(
          everyone.map(async ({ app }) => (await app.inject(dataPath(app))).body.includes('holds on to its document')),
        )
      ).every(Boolean),
    10_000,
  )
  t.comment(
    `after a restart of redis, every instance served the new page ${(performance.now() - restartedAt).toFixed(1)} ms after the 200`,
  )
  t.ok(
    everyone.some(({ logs }) => logs().some((line) => /revalidation state in redis is new/.test(line.msg))),
    'the new state is said in the log',
  )
  for (const key of [
    'courier:revalidate-seq',
    'courier:revalidate-log',
    'courier:revalidate-epoch',
    'courier:instances',
  ]) {
    t.ok((await observer.pttl(key)) > 0, `${key} has a time to live`)
  }
})
