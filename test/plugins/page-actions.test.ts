/**
 * Page actions (docs/forms.md), on the test build's form page: a POST to the page (JavaScript off) or to its data URL
 * (the router's `<Form>`) runs its action; a refused submission is the page again with its errors as a 4xx, a good one
 * a 303; bodies are forms only, within the body limit; other methods and pages without an action are 405s.
 */
import t from 'tap'
import { build } from '../helpers/app.ts'
import { testPage } from '../helpers/page-table.ts'
import { testRoutes } from '../helpers/site-pages.ts'

const formPath = testPage('test-form').path
const form = { 'content-type': 'application/x-www-form-urlencoded' }
const dataOf = (deploymentId: string, path: string) => `/_next/data/${deploymentId}${path}.json`

t.test('without JavaScript: a refused form is the page again, 422, errors by field and values kept', async (t) => {
  const { app } = await build(t, testRoutes)
  const refused = await app.inject({ method: 'POST', url: formPath, headers: form, payload: 'name=&email=ada.example' })
  t.equal(refused.statusCode, 422)
  t.match(refused.headers['content-type'], /^text\/html/)
  t.equal(refused.headers['cache-control'], 'private, no-cache, no-store, max-age=0, must-revalidate')
  t.match(refused.headers.vary, /\bCookie\b/)
  t.match(refused.body, '<p data-testid="name-error">Say who you are.</p>')
  t.match(refused.body, '<p data-testid="email-error">An email address has an @.</p>')
  t.match(refused.body, 'value="ada.example"', 'the value sent is kept')
  t.match(refused.body, '"actionData":{"errors":', 'the document state carries what the action said, for hydration')

  const sent = await app.inject({
    method: 'POST',
    url: formPath,
    headers: form,
    payload: 'name=Ada&email=ada@example.com',
  })
  t.equal(sent.statusCode, 303, 'See Other: a reload never sends the form again')
  t.equal(sent.headers.location, '/__test/form?sent=Ada')
  const after = await app.inject(sent.headers.location!)
  t.match(after.body, 'Thank you, <!-- -->Ada')
})

t.test('multipart forms without files are read; a file, JSON or an oversized body is refused', async (t) => {
  const { app } = await build(t, testRoutes)
  const boundary = 'courier-form-boundary'
  const part = (name: string, value: string, file = '') =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${value}\r\n`
  const multipart = { 'content-type': `multipart/form-data; boundary=${boundary}` }
  const fields = part('name', 'Grace') + part('email', 'grace@example.com') + `--${boundary}--\r\n`
  const sent = await app.inject({ method: 'POST', url: formPath, headers: multipart, payload: fields })
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, '/__test/form?sent=Grace')

  const withFile = part('name', 'Grace') + part('cv', 'bytes', '; filename="cv.txt"') + `--${boundary}--\r\n`
  const file = await app.inject({ method: 'POST', url: formPath, headers: multipart, payload: withFile })
  t.equal(file.statusCode, 415, 'a file field: uploads are not taken')
  t.match(file.headers['content-type'], /^text\/html/, 'the error page: a document path')
  const broken = await app.inject({ method: 'POST', url: formPath, headers: multipart, payload: 'not multipart' })
  t.equal(broken.statusCode, 400, 'a body that is not what its type says')
  const json = await app.inject({
    method: 'POST',
    url: formPath,
    headers: { 'content-type': 'application/json' },
    payload: '{"name":"Ada"}',
  })
  t.equal(json.statusCode, 415, 'JSON is no form')
  const huge = await app.inject({ method: 'POST', url: formPath, headers: form, payload: `name=${'a'.repeat(70_000)}` })
  t.equal(huge.statusCode, 413)
})

t.test('through the data URL: the redirect as data, or the page data with actionData as a 422', async (t) => {
  const { app } = await build(t, testRoutes)
  const url = dataOf(app.deploymentId, formPath)
  const refused = await app.inject({ method: 'POST', url, headers: form, payload: 'name=Ada&email=no' })
  t.equal(refused.statusCode, 422)
  t.equal(refused.headers['x-deployment-id'], app.deploymentId)
  const body = refused.json()
  t.same(body.actionData, { errors: { email: 'An email address has an @.' }, values: { name: 'Ada', email: 'no' } })
  t.equal(body.kind, 'dynamic')
  t.match(body.head, { title: /Form/ })
  t.match(body.pageProps, { sent: null })
  t.equal(refused.headers['cache-control'], 'private, no-cache, no-store, max-age=0, must-revalidate')

  const sent = await app.inject({ method: 'POST', url, headers: form, payload: 'name=Ada&email=ada@example.com' })
  t.equal(sent.statusCode, 200)
  t.same(sent.json(), { redirect: { destination: '/__test/form?sent=Ada', permanent: false } })

  const skew = await app.inject({ method: 'POST', url: dataOf('another', formPath), headers: form, payload: 'a=1' })
  t.equal(skew.statusCode, 409)
})

t.test('methods: POST where a page has an action, 405 with the right Allow elsewhere', async (t) => {
  const { app } = await build(t, testRoutes)
  const put = await app.inject({ method: 'PUT', url: formPath, headers: form, payload: 'a=1' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, POST', "the form page's methods")
  const staticPath = testPage('test-static').path
  const post = await app.inject({ method: 'POST', url: staticPath, headers: form, payload: 'a=1' })
  t.equal(post.statusCode, 405, 'a page without an action takes no POST')
  t.equal(post.headers.allow, 'GET, HEAD')
  const data = await app.inject({
    method: 'POST',
    url: dataOf(app.deploymentId, staticPath),
    headers: form,
    payload: 'a=1',
  })
  t.equal(data.statusCode, 405, 'nor its data URL')
  t.equal(data.headers.allow, 'GET, HEAD')
})

t.test(
  "an action's rate limit: the page's POSTs and its data URL's share one budget per client, then 429",
  async (t) => {
    const { app } = await build(t, testRoutes)
    const guarded = testPage('test-guarded').path
    const wrong = { method: 'POST' as const, headers: form, payload: 'secret=guess' }
    t.equal((await app.inject({ ...wrong, url: guarded })).statusCode, 422)
    t.equal((await app.inject({ ...wrong, url: guarded })).statusCode, 422)
    t.equal((await app.inject({ ...wrong, url: dataOf(app.deploymentId, guarded) })).statusCode, 422)
    const refused = await app.inject({ ...wrong, url: guarded, payload: 'secret=open sesame' })
    t.equal(refused.statusCode, 429, 'the fourth within the minute, even with the right secret')
    t.match(refused.headers['retry-after'], /^\d+$/)
    t.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60)
    const asData = await app.inject({ ...wrong, url: dataOf(app.deploymentId, guarded) })
    t.equal(asData.statusCode, 429)
    t.match(asData.json(), { statusCode: 429, code: 'COURIER_ERR_RATE_LIMITED' })
    const other = await app.inject({ ...wrong, url: formPath, payload: 'name=Ada&email=ada@example.com' })
    t.equal(other.statusCode, 303, "another page's action keeps its own (unlimited) way")
    const fromElsewhere = await app.inject({ ...wrong, url: guarded, remoteAddress: '10.0.0.9' })
    t.equal(fromElsewhere.statusCode, 422, 'another client has a budget of its own')
  },
)
