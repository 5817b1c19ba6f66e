import t from 'tap'
import { bearerToken, tokenCheck } from '../../src/pages/bearer-token.ts'

t.test('bearerToken: the scheme in any case, one token; anything else is no token', async (t) => {
  t.equal(bearerToken('Bearer abc'), 'abc')
  t.equal(bearerToken('bearer abc'), 'abc')
  t.equal(bearerToken('BEARER   abc'), 'abc')
  for (const header of [
    undefined,
    '',
    'abc',
    'Basic abc',
    'Bearer',
    'Bearer ',
    'Bearer a b',
    'Bearerabc',
    'Bearer é',
  ]) {
    t.equal(bearerToken(header), undefined, JSON.stringify(header))
  }
})

t.test(
  'tokenCheck: both sides hashed to one length and compared with timingSafeEqual, whatever is presented',
  async (t) => {
    const crypto = await import('node:crypto')
    const compared: Array<[number, number]> = []
    const { tokenCheck: recordedCheck } = await t.mockImport<typeof import('../../src/pages/bearer-token.ts')>(
      '../../src/pages/bearer-token.ts',
      {
        'node:crypto': {
          ...crypto,
          timingSafeEqual: (a: Buffer, b: Buffer) => {
            compared.push([a.length, b.length])
            return crypto.timingSafeEqual(a, b)
          },
        },
      },
    )
    const secret = 'x'.repeat(16) + 'abcdefghijklmnop'
    const check = recordedCheck(secret)
    t.equal(check(secret), true)
    const wrong = [undefined, '', 'short', secret.slice(0, -1), secret + 'x', 'y'.repeat(10_000)]
    for (const presented of wrong) t.equal(check(presented), false, String(presented).slice(0, 12))
    t.same(
      compared,
      Array(1 + wrong.length).fill([32, 32]),
      'every check, a missing token too, compares two 32-byte digests',
    )
    t.equal(tokenCheck(secret)(secret), true, 'the module as the server loads it')
  },
)
