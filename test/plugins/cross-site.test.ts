/**
 * Cross-site requests refused by default (docs/forms.md "Cross-site requests"): an unsafe method whose Origin, else
 * Sec-Fetch-Site, else Referer says it came from another site's page is a 403 before anything runs; one from the site,
 * or with none of them (a webhook, curl), goes on to its route; a route may open itself to other sites.
 */
import t from 'tap'
import Fastify from 'fastify'
import { build } from '../helpers/app.ts'
import { testPage } from '../helpers/page-table.ts'
import { testRoutes } from '../helpers/site-pages.ts'
import crossSite from '../../plugins/cross-site.ts'
import errorsPlugin from '../../plugins/errors.ts'

const formPath = testPage('test-form').path
const good = 'name=Ada&email=ada@example.com'
const siteUrl = 'https://courier.example'

t.test("a form sent from another site's page is refused, from the site itself accepted", async (t) => {
  const { app, logs } = await build(t, { ...testRoutes, SITE_URL: siteUrl })
  const post = (headers: Record<string, string>, url = formPath) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: good,
    })
  const refused: Array<[string, Record<string, string>]> = [
    ['another origin', { origin: 'https://attacker.example' }],
    ['an opaque origin', { origin: 'null' }],
    ['another port of this host', { origin: 'http://localhost:8080' }],
    ['https, the request being http', { origin: 'https://localhost' }],
    ['the public origin over http', { origin: 'http://courier.example' }],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ["another site's Referer", { referer: 'https://attacker.example/page' }],
    ['a Referer that is no URL', { referer: 'not a url' }],
    [
      'a cross-site Origin with a same-origin Sec-Fetch-Site',
      { origin: 'https://attacker.example', 'sec-fetch-site': 'same-origin' },
    ],
  ]
  for (const [what, headers] of refused) {
    const response = await post(headers)
    t.equal(response.statusCode, 403, what)
    t.notOk(response.headers.location, `${what}: the action did not run`)
    t.match(response.body, 'Forbidden', `${what}: the status table's title`)
  }
  const data = await post({ origin: 'https://attacker.example' }, `/_next/data/${app.deploymentId}${formPath}.json`)
  t.equal(data.statusCode, 403, 'the data URL too')
  t.equal(data.json().code, 'COURIER_ERR_CROSS_SITE_REFUSED')
  const line = logs().find((entry) => entry.msg === 'cross-site request refused')
  t.match(
    line,
    { level: 40, method: 'POST', from: /Origin https:\/\/attacker\.example|Origin null|Origin/ },
    'a warn line says where it came from',
  )
  t.ok(line?.reqId, 'with its reqId')

  const accepted: Array<[string, Record<string, string>]> = [
    ['the request’s own origin', { origin: 'http://localhost' }],
    ['the public origin (SITE_URL)', { origin: siteUrl }],
    ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ["the site's own Referer", { referer: `${siteUrl}/__test/form` }],
    ['none of them: a webhook, curl', {}],
  ]
  for (const [what, headers] of accepted) {
    const response = await post(headers)
    t.equal(response.statusCode, 303, what)
  }
})

t.test('a Host that is no host is no 5xx: the request is judged by the public origin alone', async (t) => {
  const { app } = await build(t, { ...testRoutes, SITE_URL: siteUrl })
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  for (const host of ['', 'exa mple', '[::1']) {
    const none = await app.inject({ method: 'POST', url: formPath, headers: { ...form, host }, payload: good })
    t.ok(none.statusCode < 500, `Host ${JSON.stringify(host)}, no Origin: ${none.statusCode}`)
    const cross = await app.inject({
      method: 'POST',
      url: formPath,
      headers: { ...form, host, origin: 'https://attacker.example' },
      payload: good,
    })
    t.equal(cross.statusCode, 403, `Host ${JSON.stringify(host)}, another Origin: refused`)
    const own = await app.inject({
      method: 'POST',
      url: formPath,
      headers: { ...form, host, origin: siteUrl },
      payload: good,
    })
    t.ok(own.statusCode < 500, `Host ${JSON.stringify(host)}, the public Origin: ${own.statusCode}`)
  }
})

t.test('safe methods are never judged; POST /api/revalidate from curl reaches its own authentication', async (t) => {
  const { app } = await build(t, { ...testRoutes, REVALIDATE_TOKEN: 'q8Zr3LmX0vTn5YwB7cKd2HsJ9fGp4AeU' })
  const get = await app.inject({ url: formPath, headers: { origin: 'https://attacker.example' } })
  t.equal(get.statusCode, 200)
  const revalidate = await app.inject({
    method: 'POST',
    url: '/api/revalidate',
    headers: { 'content-type': 'application/json' },
    payload: '{"paths":["/"]}',
  })
  t.equal(revalidate.statusCode, 401, 'judged by its token, not refused as cross-site')
})

t.test('a route opens itself to other sites with config.crossSite', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(errorsPlugin)
  await app.register(crossSite, { siteUrl })
  app.post('/api/open', { config: { crossSite: true } }, async () => ({ ok: true }))
  app.post('/api/closed', async () => ({ ok: true }))
  const headers = { origin: 'https://partner.example', 'content-type': 'application/json' }
  t.equal((await app.inject({ method: 'POST', url: '/api/open', headers, payload: '{}' })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/api/closed', headers, payload: '{}' })).statusCode, 403)
})

t.test('PUT, PATCH and DELETE are judged as POST is', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(errorsPlugin)
  await app.register(crossSite, { siteUrl })
  for (const method of ['PUT', 'PATCH', 'DELETE'] as const)
    app.route({ method, url: '/api/item', handler: async () => ({ ok: true }) })
  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    const cross = await app.inject({ method, url: '/api/item', headers: { origin: 'https://attacker.example' } })
    t.equal(cross.statusCode, 403, method)
    const own = await app.inject({ method, url: '/api/item', headers: { origin: siteUrl } })
    t.equal(own.statusCode, 200, `${method} from the site`)
  }
})
