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
import net from 'node:net'
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

/** What Redis answers a command sent without authenticating, over a plain socket. */
function refusedWithoutPassword(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET courier:x\r\n'))
    socket.once('data', (reply) => (socket.destroy(), resolve(reply.toString('utf8'))))
    socket.once('error', reject)
  })
}

/** Two apps over a Redis that asks for a password (REDIS_URL carries it), each connected and listening. */
async function passwordFleet(t: Test, extra: Record<string, string> = {}) {
  const password = 'scale-test-redis-password-0123456789'
  const redis = await startRedis(t, { password })
  const dir = await contentCopy(t)
  const env = { ...testRoutes, REDIS_URL: redis.url, REVALIDATE_TOKEN: token, CONTENT_DIR: dir, ...extra }
  const fleet = [await build(t, env), await build(t, env)]
  const observer = new Redis(redis.url)
  t.teardown(() => observer.disconnect())
  const subscribers = async () =>
    Number(((await observer.pubsub('NUMSUB', 'courier:revalidate')) as [string, number])[1])
  await waitFor('both instances subscribed, with the password', async () => (await subscribers()) === 2)
  return { fleet, observer, password, redis }
}

t.test(
  'Redis with a password: every connection authenticates with the URL’s; no log line holds the password',
  async (t) => {
    const { fleet, observer, password, redis } = await passwordFleet(t)
    const guide = testGuidePath('tide-tables')
    t.equal((await fleet[0]!.app.inject(guide)).statusCode, 200)
    await waitFor('a page version in Redis', async () => (await observer.keys('courier:page:*')).length > 0)
    t.match(await refusedWithoutPassword(redis.port), /^-NOAUTH/, 'a client without the password gets nothing')
    for (const { logs } of fleet) {
      const lines = logs().map((line) => JSON.stringify(line))
      t.ok(
        logs().some((line) => line.msg === 'redis connected: sharing state' && /\[Redacted\]/.test(String(line.redis))),
        'the connected line names Redis without its password',
      )
      t.same(
        lines.filter((line) => line.includes(password)),
        [],
        'no line holds it',
      )
    }
  },
)

t.test(
  '200 concurrent wrong tokens from one client over two instances: at most 10 answer 401, the rest 429',
  async (t) => {
    const { fleet } = await passwordFleet(t)
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, guess) =>
        fleet[guess % 2]!.app.inject({
          method: 'POST',
          url: revalidation.path,
          headers: { authorization: `Bearer guess-${guess}` },
          payload: { tags: ['none'] },
        }),
      ),
    )
    const count = (status: number) => responses.filter((response) => response.statusCode === status).length
    t.ok(
      count(401) <= revalidation.maxFailuresPerWindow,
      `${count(401)} answered 401 (budget ${revalidation.maxFailuresPerWindow})`,
    )
    t.equal(count(401) + count(429), 200, 'every other guess: 429')
    const retryAfters = responses
      .filter((response) => response.statusCode === 429)
      .map((response) => Number(response.headers['retry-after']))
    t.ok(
      retryAfters.every(
        (seconds) => Number.isInteger(seconds) && seconds >= 1 && seconds <= revalidation.windowMs / 1000,
      ),
      `each 429 says when the window ends (Retry-After ${Math.min(...retryAfters)}-${Math.max(...retryAfters)} s)`,
    )
    t.comment(`401: ${count(401)}, 429: ${count(429)}`)
  },
)

t.test(
  'a page version planted in Redis with a future time and a high number: a revalidation replaces it, one warn line',
  async (t) => {
    const { fleet, observer } = await passwordFleet(t)
    const guide = testGuidePath('tide-tables')
    for (const { app } of fleet) t.match((await app.inject(guide)).body, 'one of the skills')
    const [pageKey] = (await observer.keys('courier:page:*')).filter((key) => !key.startsWith('courier:page-lock'))
    t.ok(pageKey, 'the fleet keeps the guide in Redis')
    const kept = JSON.parse((await observer.get(pageKey!))!) as Record<string, unknown>
    const forged = JSON.stringify({
      ...kept,
      answer: JSON.parse(JSON.stringify(kept.answer).replaceAll('one of the skills', 'a planted sentence')),
      generatedAt: Date.now() + 365 * 24 * 60 * 60 * 1000,
      seq: 1_000_000_000,
    })
    await observer.set(pageKey!, forged, 'PX', 60_000)
    const calledAt = performance.now()
    const response = await fleet[0]!.app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization: `Bearer ${token}` },
      payload: { paths: [guide] },
    })
    t.equal(response.statusCode, 200)
    const bodies = await Promise.all(fleet.map(({ app }) => app.inject(guide)))
    const servedMs = performance.now() - calledAt
    for (const body of bodies) {
      t.notMatch(body.body, 'a planted sentence', 'the planted version is never served')
      t.match(body.body, 'one of the skills', 'the regenerated one is')
    }
    t.comment(`every instance served the regenerated page ${servedMs.toFixed(1)} ms after the call`)
    t.notMatch(await observer.get(pageKey!), 'a planted sentence', 'and it replaced the planted one in Redis')
    const warned = fleet.map(({ logs }) =>
      logs().filter((line) => line.msg === 'shared page version ignored: not one the fleet made'),
    )
    t.ok(warned.flat().length >= 1, 'a warn line says so')
    t.ok(
      warned.every((lines) => lines.length <= 1),
      `one line per instance at most (${warned.map((lines) => lines.length).join(', ')})`,
    )
    t.match(warned.flat()[0], { level: 40, reason: 'future' })
  },
)
