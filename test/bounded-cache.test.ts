import t from 'tap'
import { BoundedCache } from '../src/bounded-cache.ts'
import { caches } from '../config/caches.ts'

const byLength = (value: string) => value.length

t.test('past its entries, the least recently used goes', async (t) => {
  const cache = new BoundedCache<string, string>({ maxEntries: 2, maxBytes: 1000 }, byLength)
  cache.set('a', 'x')
  cache.set('b', 'y')
  t.equal(cache.get('a'), 'x', 'a is now the most recently used')
  cache.set('c', 'z')
  t.equal(cache.get('b'), undefined, 'b went')
  t.equal(cache.get('a'), 'x')
  t.equal(cache.get('c'), 'z')
  t.equal(cache.size, 2)
  cache.get('c')
  cache.get('c')
  cache.set('d', 'w')
  t.equal(cache.get('a'), undefined, 'asked twice in a row, c stays the newest: a went')
  t.equal(cache.get('c'), 'z')
})

t.test('bytes first: entries go until the new one fits, whatever their number', async (t) => {
  const cache = new BoundedCache<string, string>({ maxEntries: 100, maxBytes: 10 }, byLength)
  cache.set('a', 'aaaa')
  cache.set('b', 'bbbb')
  t.equal(cache.bytes, 8)
  cache.set('c', 'cccc')
  t.equal(cache.get('a'), undefined, 'the oldest went to make room')
  t.equal(cache.bytes, 8)
  cache.set('big', 'x'.repeat(11))
  t.equal(cache.get('big'), undefined, 'an entry larger than the bound is not kept')
  t.equal(cache.size, 2, 'and pushes nothing out')
  cache.set('b', 'bb')
  t.equal(cache.bytes, 6, 'a replaced entry counts with its new size')
})

t.test('getOrSet makes a value once', async (t) => {
  const cache = new BoundedCache<string, number>({ maxEntries: 4, maxBytes: 100 }, () => 1)
  let made = 0
  t.equal(
    cache.getOrSet('k', () => ++made),
    1,
  )
  t.equal(
    cache.getOrSet('k', () => ++made),
    1,
  )
  t.equal(made, 1)
  const none = new BoundedCache<string, number>({ maxEntries: 0, maxBytes: 100 }, () => 1)
  t.equal(
    none.getOrSet('k', () => 7),
    7,
    'a cache bounded at 0 still answers',
  )
  t.equal(none.size, 0, 'and keeps nothing')
})

t.test('every bound of config/caches.ts is a positive whole number', async (t) => {
  for (const [name, bounds] of Object.entries(caches)) {
    t.ok(Number.isInteger(bounds.maxEntries) && bounds.maxEntries > 0, `${name}.maxEntries`)
    t.ok(Number.isInteger(bounds.maxBytes) && bounds.maxBytes > 0, `${name}.maxBytes`)
  }
})
