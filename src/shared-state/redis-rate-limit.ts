import type { SharedRedis } from './redis.ts'
import type { Exceeding, RateCount } from './local-rate-limit.ts'
import type { RateLimitCounter, SharedRateLimits } from './rate-limit-store.ts'

/**
 * One request counted in one round trip: the count goes up, a new window (the first request, or a renewal past the
 * budget by `continueExceeding` or `exponentialBackoff`, as src/shared-state/local-rate-limit.ts windowAfter says)
 * sets the key's time to live; otherwise the time left is read. A key without a time to live (none should be) gets
 * one, so no count outlives its window. The window goes to PEXPIRE as a whole number, however long a back-off makes it.
 */
const incrScript = `
local count = redis.call('INCR', KEYS[1])
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local renew = count == 1 or (ARGV[3] == '1' and count > max)
if not renew and ARGV[4] == '1' and count > max then
  window = math.min(window * 2 ^ (count - max - 1), 9007199254740991)
  renew = true
end
if not renew then
  local left = redis.call('PTTL', KEYS[1])
  if left >= 0 then return { count, left } end
end
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', window))
return { count, window }`

/** A key's count and time left, without counting; 0 and 0 when its window is over. */
const readScript = `
local count = redis.call('GET', KEYS[1])
if not count then return { 0, 0 } end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then left = 0 end
return { tonumber(count), left }`

class RedisRateLimitCounter implements RateLimitCounter {
  readonly #redis: SharedRedis
  readonly #namespace: string
  readonly #exceeding: Exceeding

  constructor(redis: SharedRedis, namespace: string, exceeding: Exceeding) {
    this.#redis = redis
    this.#namespace = namespace
    this.#exceeding = exceeding
  }

  async incr(key: string, timeWindow: number, max: number): Promise<RateCount> {
    const { continueExceeding, exponentialBackoff } = this.#exceeding
    const flags = [continueExceeding ? '1' : '0', exponentialBackoff ? '1' : '0']
    const [current, ttl] = (await this.#redis.client.eval(
      incrScript,
      1,
      this.#namespace + key,
      timeWindow,
      max,
      ...flags,
    )) as [number, number]
    return { current, ttl }
  }

  async read(key: string): Promise<RateCount> {
    const [current, ttl] = (await this.#redis.client.eval(readScript, 1, this.#namespace + key)) as [number, number]
    return { current, ttl }
  }
}

/**
 * The fleet's rate-limit counts in Redis (REDIS_URL): one key per client and route under `<prefix>rate-limit:`, living
 * as long as its window. src/shared-state/rate-limit-store.ts falls back to this instance's counts while Redis is down.
 */
export function redisRateLimits(redis: SharedRedis): SharedRateLimits {
  const namespace = `${redis.keyPrefix}rate-limit:`
  return {
    get up() {
      return redis.up
    },
    counter: (route, exceeding) =>
      new RedisRateLimitCounter(redis, route ? `${namespace}${route}:` : namespace, exceeding),
    failed: (error, command) => redis.commandFailed(error, command),
  }
}
