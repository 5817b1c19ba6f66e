import t from 'tap'
import { judge, type Target } from '../../bench/targets.ts'

const page: Target = {
  name: 'Courier /',
  server: 'courier',
  kind: 'static-page',
  path: '/',
  expectedStatus: 200,
  body: 'html',
  markers: ['<title>Courier: React delivery on Fastify</title>'],
}
const good = '<!doctype html><html><head><title>Courier: React delivery on Fastify</title></head><body></body></html>\n'

t.test('the right page passes', async (t) => {
  t.equal(judge(page, 200, good), 'ok')
})

t.test('an error page is no page: wrong status, or the right status with the wrong body', async (t) => {
  const errorPage = '<!doctype html><html><head><title>500: Internal Server Error</title></head><body></body></html>'
  t.equal(judge(page, 500, errorPage), 'unexpected-status')
  t.equal(judge(page, 200, errorPage), 'body-mismatch')
  t.equal(
    judge({ ...page, expectedStatus: 404, markers: ['<title>404: Not Found</title>'] }, 200, good),
    'unexpected-status',
  )
})

t.test('a document cut short (an aborted stream) is a mismatch', async (t) => {
  t.equal(judge(page, 200, good.slice(0, good.indexOf('<body>'))), 'body-mismatch')
})

t.test('text targets need their markers only; byte targets their exact length', async (t) => {
  const data: Target = { ...page, kind: 'static-data', body: 'text', markers: ['"Streaming server rendering"'] }
  t.equal(judge(data, 200, '{"props":{"title":"Streaming server rendering"}}'), 'ok')
  t.equal(judge(data, 200, '{"error":"stale deployment"}'), 'body-mismatch')
  const image: Target = { ...page, kind: 'image-hit', body: 'bytes', markers: [], expectedBytes: 1234 }
  t.equal(judge(image, 200, '', { 'content-length': '1234' }), 'ok')
  t.equal(judge(image, 200, '', { 'content-length': '99' }), 'body-mismatch')
  t.equal(judge(image, 200, '', {}), 'body-mismatch')
})

t.test('a compressed answer is judged by its coding: one the target asked for, with a body', async (t) => {
  const page: Target = {
    name: 'x',
    server: 'courier',
    kind: 'static-page+compressed',
    path: '/',
    expectedStatus: 200,
    body: 'html',
    markers: ['<title>x</title>'],
    headers: { 'accept-encoding': 'br, gzip' },
  }
  t.equal(judge(page, 200, '\u0000binary', { 'content-encoding': 'br' }), 'ok')
  t.equal(judge(page, 200, '\u0000binary', { 'content-encoding': 'gzip' }), 'ok')
  t.equal(
    judge(page, 200, '\u0000binary', { 'content-encoding': 'deflate' }),
    'body-mismatch',
    'a coding it did not ask for',
  )
  t.equal(judge(page, 200, '', { 'content-encoding': 'br' }), 'body-mismatch', 'an empty body')
  t.equal(
    judge({ ...page, headers: {} }, 200, 'x', { 'content-encoding': 'br' }),
    'body-mismatch',
    'a coding nobody asked for',
  )
  t.equal(judge(page, 200, '<title>x</title></html>', {}), 'ok', 'identity (a small body): judged by its markers')
  t.equal(judge(page, 500, 'x', { 'content-encoding': 'br' }), 'unexpected-status')
})
