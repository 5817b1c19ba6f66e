/**
 * REDIS_URL against a real redis-server on a loopback port: several Courier instances (the image and client-report
 * plugins as the app registers them, each with a cache folder of its own) share optimized images, one transform per
 * image, and one rate-limit budget; with Redis stopped they keep serving alone (one warn line, no 5xx) and share again
 * once it is back (one info line).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { pino } from 'pino'
import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import clientErrors from '../../plugins/client-errors.ts'
import errors from '../../plugins/errors.ts'
import image from '../../plugins/image.ts'
import sharedState from '../../plugins/shared-state.ts'
import { captureLogs, type LogLine } from '../helpers/app.ts'
import { jpegOf, temporaryFolder } from '../helpers/images.ts'
import { startRedis } from './processes.ts'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'

interface Instance {
  app: FastifyInstance
  logs(): LogLine[]
  clock: { now: number }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function publicFolder(t: Test): Promise<string> {
  const root = temporaryFolder(t, 'public')
  mkdirSync(path.join(root, 'images'), { recursive: true })
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f'])
    writeFileSync(path.join(root, 'images', `${name}.jpg`), await jpegOf(800, 600))
  return root
}

/** One Courier instance: its own cache folder and clock, the shared Redis. */
async function instance(t: Test, redisUrl: string, publicRoot: string): Promise<Instance> {
  const { stream, lines } = captureLogs()
  const clock = { now: Date.now() }
  const app = Fastify({ loggerInstance: pino({ level: 'debug' }, stream) }) as unknown as FastifyInstance
  await app.register(errors)
  await app.register(sharedState, { redisUrl })
  await app.register(image, {
    publicRoot,
    cacheDir: path.join(temporaryFolder(t, 'cache'), 'images'),
    now: () => clock.now,
    sharedLimits: { imageWaitPollMs: 20 },
  })
  await app.register(clientErrors)
  t.teardown(() => app.close())
  await app.ready()
  await waitFor('redis connected', () => lines().some((line) => /redis connected/.test(line.msg)))
  return { app, logs: lines, clock }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

function imageUrl(name: string, width = 640): string {
  return `/_next/image?url=${encodeURIComponent(`/images/${name}.jpg`)}&w=${width}&q=75`
}

const transforms = (instances: Instance[]) =>
  instances.reduce((sum, one) => sum + one.logs().filter((line) => line.msg === 'image transformed').length, 0)

const report = { source: 'onerror', message: 'boom', url: 'http://localhost/' }

function postReport(app: FastifyInstance, ip: string) {
  return app.inject({ method: 'POST', url: '/api/client-errors', payload: report, remoteAddress: ip })
}

t.test('images: one transform cluster-wide, HIT and STALE agree across instances', async (t) => {
  const redis = await startRedis(t)
  const publicRoot = await publicFolder(t)
  const instances = [
    await instance(t, redis.url, publicRoot),
    await instance(t, redis.url, publicRoot),
    await instance(t, redis.url, publicRoot),
  ]

  // The same new image asked of three instances at once.
  const answers = await Promise.all(
    instances.map((one) => one.app.inject({ url: imageUrl('a'), headers: { accept: 'image/webp' } })),
  )
  t.same(
    answers.map((answer) => answer.statusCode),
    [200, 200, 200],
  )
  t.same(
    answers.map((answer) => answer.headers['x-image-cache']),
    ['MISS', 'MISS', 'MISS'],
    'none had it when asked',
  )
  t.equal(new Set(answers.map((answer) => answer.headers.etag)).size, 1, 'the same bytes everywhere')
  t.equal(transforms(instances), 1, 'one transform in the cluster')
  const waited = instances.reduce(
    (sum, one) => sum + one.logs().filter((line) => line.msg === 'image made by another instance').length,
    0,
  )
  t.equal(waited, 2, 'the two others waited for it')

  // Asked again: a HIT on every instance, still one transform.
  for (const one of instances) {
    const again = await one.app.inject({ url: imageUrl('a'), headers: { accept: 'image/webp' } })
    t.equal(again.headers['x-image-cache'], 'HIT')
    t.equal(again.headers.etag, answers[0]!.headers.etag)
  }
  t.equal(transforms(instances), 1)

  // An image made on one instance is a HIT on another that never saw it (from Redis), then kept locally.
  const [first, second, third] = instances as [Instance, Instance, Instance]
  t.equal((await first.app.inject(imageUrl('b'))).headers['x-image-cache'], 'MISS')
  t.equal((await second.app.inject(imageUrl('b'))).headers['x-image-cache'], 'HIT', 'a HIT from the shared tier')
  t.equal(transforms(instances), 2)

  // The 60 s minimum is the entry's, not an instance's: before it, a HIT everywhere; after it, STALE everywhere,
  // then one background refresh in the cluster and HIT again.
  for (const one of instances) one.clock.now += 59_000
  t.equal((await third.app.inject(imageUrl('b'))).headers['x-image-cache'], 'HIT', 'within 60 s on a third instance')
  for (const one of instances) one.clock.now += 2_000
  t.equal(
    (await third.app.inject(imageUrl('b'))).headers['x-image-cache'],
    'STALE',
    'after 60 s, stale for an instance that never made it',
  )
  t.equal((await first.app.inject(imageUrl('b'))).headers['x-image-cache'], 'STALE', 'and for the one that did')
  await waitFor('one refresh', () => transforms(instances) === 3)
  await sleep(200)
  t.equal(transforms(instances), 3, 'one refresh in the cluster, not one per instance')
  t.equal((await second.app.inject(imageUrl('b'))).headers['x-image-cache'], 'HIT', 'the refreshed entry, from Redis')
})

t.test('client reports: one budget per client across instances', async (t) => {
  const redis = await startRedis(t)
  const publicRoot = await publicFolder(t)
  const [first, second] = [await instance(t, redis.url, publicRoot), await instance(t, redis.url, publicRoot)]
  const statuses: number[] = []
  for (let index = 0; index < 10; index += 1) statuses.push((await postReport(first.app, '198.51.100.1')).statusCode)
  for (let index = 0; index < 10; index += 1) statuses.push((await postReport(second.app, '198.51.100.1')).statusCode)
  t.same(statuses, new Array(20).fill(204), '20 per minute, spread over two instances')
  const over = await postReport(second.app, '198.51.100.1')
  t.equal(over.statusCode, 429, 'the 21st is refused whichever instance gets it')
  t.equal(over.json().code, 'COURIER_ERR_CLIENT_ERROR_RATE_LIMITED')
  t.equal((await postReport(first.app, '198.51.100.1')).statusCode, 429)
  t.equal((await postReport(first.app, '198.51.100.2')).statusCode, 204, 'another client has its own budget')
})

t.test('Redis stopped and started again: no 5xx, one warn line, one info line, sharing resumes', async (t) => {
  const redis = await startRedis(t)
  const publicRoot = await publicFolder(t)
  const [first, second] = [await instance(t, redis.url, publicRoot), await instance(t, redis.url, publicRoot)]
  t.equal((await first.app.inject(imageUrl('c'))).headers['x-image-cache'], 'MISS')

  await redis.stop()
  await waitFor('the lost line', () => first.logs().some((line) => /redis connection lost/.test(line.msg)))
  const statuses: number[] = []
  const deadline = Date.now() + 2_000
  while (Date.now() < deadline) {
    for (const name of ['c', 'd']) {
      statuses.push((await first.app.inject(imageUrl(name))).statusCode)
      statuses.push((await second.app.inject(imageUrl(name))).statusCode)
    }
    statuses.push((await postReport(second.app, '198.51.100.7')).statusCode)
    await sleep(100)
  }
  // More reports than one budget, all while Redis is gone.
  for (let index = 0; index < 25; index += 1) statuses.push((await postReport(second.app, '198.51.100.8')).statusCode)
  t.notOk(
    statuses.some((status) => status >= 500),
    `no 5xx while Redis is gone (${statuses.length} requests)`,
  )
  t.ok(statuses.filter((status) => status === 200).length > 0)
  t.ok(statuses.includes(429), 'the client-report limit still holds, per instance')
  t.equal(
    (await second.app.inject(imageUrl('c'))).headers['x-image-cache'],
    'HIT',
    'the local copy made meanwhile serves',
  )

  await redis.start()
  await waitFor(
    'the restored line',
    () =>
      first.logs().some((line) => /redis connection restored/.test(line.msg)) &&
      second.logs().some((line) => /redis connection restored/.test(line.msg)),
  )
  for (const one of [first, second]) {
    const lost = one.logs().filter((line) => /redis connection lost/.test(line.msg))
    t.equal(lost.length, 1, 'one warn line for the outage')
    t.equal(lost[0]!.level, 40)
    const restored = one.logs().filter((line) => /redis connection restored/.test(line.msg))
    t.equal(restored.length, 1, 'one info line when it is back')
    t.equal(restored[0]!.level, 30)
  }
  // Sharing resumes: made on one, a HIT on the other.
  t.equal((await first.app.inject(imageUrl('e'))).headers['x-image-cache'], 'MISS')
  t.equal((await second.app.inject(imageUrl('e'))).headers['x-image-cache'], 'HIT', 'shared again')
})

t.test('Redis slow: a request does not wait for it beyond the command time-out', async (t) => {
  const redis = await startRedis(t)
  const publicRoot = await publicFolder(t)
  const first = await instance(t, redis.url, publicRoot)
  const admin = new Redis(redis.url)
  t.teardown(() => admin.quit())
  const pauseMs = 4_000
  await admin.call('CLIENT', 'PAUSE', String(pauseMs), 'ALL')
  const started = Date.now()
  const answer = await first.app.inject(imageUrl('f'))
  const tookMs = Date.now() - started
  t.equal(answer.statusCode, 200, 'served without Redis')
  t.equal(answer.headers['x-image-cache'], 'MISS')
  // Behaviour, not speed: the answer came before Redis woke up, i.e. no request waited for it.
  t.ok(tookMs < pauseMs, `answered while Redis was paused (${tookMs} ms of a ${pauseMs} ms pause)`)
  const report = await postReport(first.app, '198.51.100.9')
  t.equal(report.statusCode, 204, 'a client report is taken too (local budget)')
})
