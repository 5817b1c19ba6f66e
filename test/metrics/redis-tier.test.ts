/**
 * The image metric's tier with REDIS_URL (a real redis-server, test/scale/processes.ts): an image one instance made
 * is a hit from `redis` on another that never saw it, then a hit from its own `disk` cache.
 */
import t from 'tap'
import { CourierMetrics } from '../../src/metrics/courier-metrics.ts'
import { build } from '../helpers/app.ts'
import { startRedis } from '../scale/processes.ts'
import { parseExposition, valueOf } from './exposition.ts'
import { publicImagePath } from '../helpers/site-pages.ts'

t.test('image responses by tier: disk, redis, none', async (t) => {
  const redis = await startRedis(t)
  const env = { METRICS_PORT: '0', REDIS_URL: redis.url }
  const [maker, other] = [await build(t, env), await build(t, env)]
  const url = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640`
  t.equal((await maker.app.inject(url)).headers['x-image-cache'], 'MISS')
  t.equal((await other.app.inject(url)).headers['x-image-cache'], 'HIT', 'from the shared tier')
  t.equal((await other.app.inject(url)).headers['x-image-cache'], 'HIT', 'then from its own cache')

  const scrape = async (app: typeof maker.app) =>
    parseExposition(await (app.metrics as CourierMetrics).registry.metrics())
  const makerSamples = await scrape(maker.app)
  const otherSamples = await scrape(other.app)
  t.equal(valueOf(makerSamples, 'courier_image_responses_total', { cache_state: 'miss', tier: 'none' }), 1)
  t.equal(valueOf(makerSamples, 'courier_image_transform_seconds_count', { format: 'jpeg' }), 1)
  t.equal(valueOf(otherSamples, 'courier_image_responses_total', { cache_state: 'hit', tier: 'redis' }), 1)
  t.equal(valueOf(otherSamples, 'courier_image_responses_total', { cache_state: 'hit', tier: 'disk' }), 1)
  t.equal(
    valueOf(otherSamples, 'courier_image_transform_seconds_count'),
    undefined,
    'no transform on the other instance',
  )
})
