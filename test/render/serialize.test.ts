import t from 'tap'
import { serializeForScript } from '../../src/common/script-json.ts'

t.test('data cannot end the script element or break a JS literal', async (t) => {
  const hostile = { text: '</script><script>alert(1)</script>', comment: '<!-- x', amp: 'a & b', ls: 'a\u2028b\u2029c' }
  const json = serializeForScript(hostile)
  t.notMatch(json, /<\/script/i)
  t.notMatch(json, /<!--/)
  t.notMatch(json, /[\u2028\u2029]/)
  t.same(JSON.parse(json), hostile, 'the data survives the round trip')
})
