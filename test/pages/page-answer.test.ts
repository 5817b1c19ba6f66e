import t from 'tap'
import { decodePageAnswer, encodePageAnswer, pageAnswerKind, type PageAnswer } from '../../src/common/page-data.ts'

t.test("a page answer's JSON is Next's page-data shape, byte for byte", async (t) => {
  t.same(encodePageAnswer({ props: { a: 1 } }, 'static', { title: 'A', description: 'About a' }), {
    statusCode: 200,
    body: '{"pageProps":{"a":1},"kind":"static","head":{"title":"A","description":"About a"}}',
  })
  t.same(encodePageAnswer({ props: {} }, 'dynamic', { title: 'B' }), {
    statusCode: 200,
    body: '{"pageProps":{},"kind":"dynamic","head":{"title":"B"}}',
  })
  const extra = { title: 'C', description: 'D', robots: 'noindex' } as { title: string; description: string }
  t.same(
    encodePageAnswer({ props: {} }, 'static', extra).body,
    '{"pageProps":{},"kind":"static","head":{"title":"C","description":"D"}}',
    "a head's fields only: title and description",
  )
  t.same(encodePageAnswer({ redirect: { destination: '/b', permanent: true } }), {
    statusCode: 200,
    body: '{"redirect":{"destination":"/b","permanent":true}}',
  })
  t.same(encodePageAnswer({ notFound: true }), { statusCode: 404, body: '{"notFound":true}' })
})

t.test("a loader's redirect is written key by key: its key order and extra keys do not reach the wire", async (t) => {
  const written = { permanent: false, destination: '/b', basePath: false }
  t.equal(
    encodePageAnswer({ redirect: written }, 'static', { title: '' }).body,
    '{"redirect":{"destination":"/b","permanent":false}}',
  )
})

t.test('decoding gives back the answer that was encoded', async (t) => {
  const answers: Array<[PageAnswer, string]> = [
    [{ props: { list: [1, 2], text: '</script>' }, head: { title: 'List', description: 'Two' } }, 'props'],
    [{ props: {}, head: { title: 'No description' } }, 'props'],
    [{ redirect: { destination: '/elsewhere?x=1', permanent: false } }, 'redirect'],
    [{ notFound: true }, 'notFound'],
  ]
  for (const [answer, kind] of answers) {
    const head = 'props' in answer ? answer.head! : { title: '' }
    const { statusCode, body } = encodePageAnswer(answer, 'static', head)
    t.same(decodePageAnswer(statusCode, JSON.parse(body)), answer, kind)
    t.equal(pageAnswerKind(answer), kind)
  }
})

t.test('anything else is no answer: the router then loads the page in full', async (t) => {
  const cases: Array<[number, unknown]> = [
    [200, null],
    [200, []],
    [200, 'text'],
    [200, { pageProps: {} }],
    [200, { pageProps: {}, kind: 'other' }],
    [200, { redirect: { destination: 5 } }],
    [200, { redirect: '/b' }],
    [200, { notFound: true }],
    [404, { pageProps: {}, kind: 'static' }],
    [404, { notFound: 'yes' }],
    [500, { pageProps: {}, kind: 'static' }],
  ]
  for (const [status, json] of cases)
    t.equal(decodePageAnswer(status, json), undefined, `${status} ${JSON.stringify(json)}`)
})
