/**
 * Entries in the shared tier (REDIS_URL) carry a bounded time to live, however long the source says it stays fresh:
 * a real redis-server (test/scale/processes.ts) and a real remote host answering `max-age` of a year.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import { pino } from 'pino'
import t from 'tap'
import { sharedState } from '../../config/shared-state.ts'
import errors from '../../plugins/errors.ts'
import image from '../../plugins/image.ts'
import { SharedRedis } from '../../src/shared-state/redis.ts'
import { startRedis } from './processes.ts'
import { jpegOf, temporaryFolder } from '../helpers/images.ts'

t.test('a remote image fresh for a year stays in Redis at most imageMaxTtlMs', async (t) => {
  const photo = await jpegOf(200, 150)
  const upstream = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/jpeg', 'cache-control': 'public, max-age=31536000' }).end(photo)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => upstream.close(() => resolve())))
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`

  const redis = await startRedis(t)
  const app = Fastify({ loggerInstance: pino({ level: 'silent' }) }) as unknown as FastifyInstance
  const shared = new SharedRedis({ url: redis.url, log: app.log })
  t.teardown(() => shared.client.quit().catch(() => undefined))
  await new Promise<void>((resolve) => shared.client.once('ready', () => resolve()))
  app.decorate('sharedRedis', shared)
  await app.register(errors)
  await app.register(image, {
    publicRoot: temporaryFolder(t, 'public'),
    cacheDir: temporaryFolder(t, 'cache'),
    limits: { remoteOrigins: [origin] },
    isAddressRefused: () => false,
  })
  t.teardown(() => app.close())

  const response = await app.inject(`/_next/image?url=${encodeURIComponent(`${origin}/photo.jpg`)}&w=128`)
  t.equal(response.statusCode, 200)
  t.equal(
    response.headers['cache-control'],
    'public, max-age=31536000, must-revalidate',
    'the browser may keep it a year',
  )
  const keys = await shared.client.keys(`${sharedState.keyPrefix}image:*`)
  t.equal(keys.length, 1, 'one entry in Redis')
  const ttlMs = await shared.client.pttl(keys[0]!)
  t.ok(ttlMs > 0, 'it expires')
  t.ok(
    ttlMs <= sharedState.imageMaxTtlMs,
    `Redis keeps it ${Math.round(ttlMs / 3_600_000)} h, at most ${sharedState.imageMaxTtlMs / 3_600_000} h`,
  )
})
