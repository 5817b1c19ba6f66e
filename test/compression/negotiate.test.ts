import t from 'tap'
import { gunzipSync } from 'node:zlib'
import { identityAcceptable, negotiateCoding } from '../../src/compression/negotiate.ts'
import { compressSegments, gzipWithInsertions } from '../../src/compression/gzip-segments.ts'

const both = ['br', 'gzip'] as const

t.test('Accept-Encoding: q-values, ties to the server, identity and *', async (t) => {
  const cases: Array<[string | undefined, readonly ('br' | 'gzip')[], string]> = [
    [undefined, both, 'identity'],
    ['', both, 'identity'],
    ['gzip, deflate, br, zstd', both, 'br'],
    ['gzip, deflate, br, zstd', ['gzip', 'br'], 'gzip'],
    ['gzip', both, 'gzip'],
    ['br;q=0.5, gzip;q=0.8', both, 'gzip'],
    ['BR', both, 'br'],
    ['gzip;q=0, br;q=0', both, 'identity'],
    ['*', both, 'br'],
    ['*;q=0.3, br;q=0', both, 'gzip'],
    ['gzip;q=0.5, identity', both, 'identity'],
    ['identity;q=0, gzip;q=0.1', both, 'gzip'],
    ['deflate', both, 'identity'],
    ['gzip;q=abc', both, 'identity'],
    ['gzip;q=2', both, 'identity'],
    [',,;q=1, br', both, 'br'],
  ]
  for (const [header, offered, expected] of cases) t.equal(negotiateCoding(header, offered), expected, String(header))
})

t.test('zstd among the codings: q-values first, then the order offered', async (t) => {
  const three = ['gzip', 'zstd', 'br'] as const
  const cases: Array<[string, readonly ('br' | 'gzip' | 'zstd')[], string]> = [
    ['gzip, deflate, br, zstd', three, 'gzip'],
    ['gzip, deflate, br, zstd', ['zstd', 'br', 'gzip'], 'zstd'],
    ['gzip, deflate, br, zstd;q=0', ['zstd', 'br', 'gzip'], 'br'],
    ['zstd;q=0', three, 'identity'],
    ['br;q=1, zstd;q=0.5', three, 'br'],
    ['br;q=0.5, zstd', three, 'zstd'],
    ['zstd, gzip;q=0.9', ['br', 'gzip', 'zstd'], 'zstd'],
    ['*', three, 'gzip'],
    ['*', ['zstd', 'gzip'], 'zstd'],
    ['*, zstd;q=0', ['zstd', 'br'], 'br'],
    ['ZSTD', three, 'zstd'],
    ['zstd', ['br', 'gzip'], 'identity'],
  ]
  for (const [header, offered, expected] of cases)
    t.equal(negotiateCoding(header, offered), expected, `${header} (${offered.join(', ')})`)
})

t.test('identity is acceptable unless refused', async (t) => {
  t.equal(identityAcceptable(undefined), true)
  t.equal(identityAcceptable('gzip'), true)
  t.equal(identityAcceptable('identity;q=0, gzip'), false)
  t.equal(identityAcceptable('*;q=0, gzip'), false)
  t.equal(identityAcceptable('*;q=0, identity;q=0.1'), true)
})

t.test('gzip segments: any insertion, any parts, decode to the joined text', async (t) => {
  const texts = ['<p a', '>x</p><p b', '>', '', 'y'.repeat(70_000) + 'z', '']
  const segments = compressSegments(
    texts.map((text) => Buffer.from(text)),
    9,
  )
  for (const between of ['', ' nonce="abc"', 'é'.repeat(40_000)]) {
    const gzipped = gzipWithInsertions(segments, Buffer.from(between))
    t.equal(gunzipSync(gzipped).toString(), texts.join(between), `insertion of ${Buffer.byteLength(between)} bytes`)
  }
  const single = compressSegments([Buffer.from('only')], 6)
  t.equal(
    gunzipSync(gzipWithInsertions(single, Buffer.from('ignored'))).toString(),
    'only',
    'one part: nothing inserted',
  )
})
