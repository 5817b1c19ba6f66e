/**
 * The site's own routes (docs/your-routes.md), on the test build's test/site/routes/: a plugin per file, registered
 * after Courier's, so its routes get the error table with digests, the access line, the cross-site refusal and 405s
 * with their own Allow; a file that is no plugin stops the start naming it.
 */
import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { build } from '../helpers/app.ts'
import { testRoutes } from '../helpers/site-pages.ts'
import { listSiteRouteFiles, sitePluginOf } from '../../src/site-route-files.ts'

t.test("a site's route answers as Courier's do: JSON, errors from the table, its own 405s", async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const hello = await app.inject('/api/__test/hello')
  t.equal(hello.statusCode, 200)
  t.same(hello.json(), { hello: 'world' })
  const echo = await app.inject({ method: 'POST', url: '/api/__test/echo', payload: { a: 1 } })
  t.same(echo.json(), { echo: { a: 1 } })
  const failed = await app.inject('/api/__test/fail')
  t.equal(failed.statusCode, 500)
  t.match(failed.json(), { statusCode: 500, error: 'Internal Server Error' })
  t.notMatch(failed.body, 'on purpose', 'the message stays in the log')
  t.match(failed.json().digest, /^[0-9a-f]+$/, 'a digest to find the log line by')
  const put = await app.inject({ method: 'PUT', url: '/api/__test/echo' })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'POST', 'the methods the path takes')
  const access = logs().find((line) => line.msg === 'request completed' && /__test\/hello/.test(JSON.stringify(line)))
  t.ok(access?.reqId, 'an access line with its reqId')
})

t.test("a site's route refuses other sites' pages unless it opens itself", async (t) => {
  const { app } = await build(t, testRoutes)
  const headers = { origin: 'https://attacker.example' }
  t.equal((await app.inject({ method: 'POST', url: '/api/__test/echo', headers, payload: {} })).statusCode, 403)
  t.equal((await app.inject({ method: 'POST', url: '/api/__test/open', headers, payload: {} })).statusCode, 200)
})

t.test('a file of the folder that is no route plugin stops the start, naming it', async (t) => {
  const cache = path.join(projectRoot, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  const root = mkdtempSync(path.join(cache, 'courier-site-routes-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(path.join(root, 'site', 'routes'), { recursive: true })
  t.same(listSiteRouteFiles(root, ['site/routes', 'site/none']), [], 'an empty or missing folder: none')
  writeFileSync(path.join(root, 'site', 'routes', 'notes.md'), '')
  t.throws(() => listSiteRouteFiles(root, ['site/routes']), {
    code: 'COURIER_ERR_SITE_ROUTE_INVALID',
    message: /site\/routes\/notes\.md: not a route plugin/,
  })
  t.throws(() => sitePluginOf({ file: 'site/routes/api.ts', plugin: undefined }), {
    message: /site\/routes\/api\.ts: no default export/,
  })
})

t.test("a site's route that asks for a rate limit gets one: 429 from the table with Retry-After", async (t) => {
  const { app } = await build(t, testRoutes)
  const post = () => app.inject({ method: 'POST', url: '/api/__test/limited', payload: {} })
  for (let count = 1; count <= 3; count += 1) t.equal((await post()).statusCode, 200, `request ${count} of 3`)
  const refused = await post()
  t.equal(refused.statusCode, 429)
  t.match(refused.json(), { statusCode: 429, code: 'COURIER_ERR_RATE_LIMITED' })
  t.match(refused.headers['retry-after'], /^\d+$/)
  t.equal((await app.inject('/api/__test/hello')).statusCode, 200, 'a route that does not ask is not limited')
})

t.test('a route opened to a partner with @fastify/cors: its preflight is answered, not a 405', async (t) => {
  const { app } = await build(t, testRoutes)
  const partner = 'https://partner.example'
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/__test/partner/orders',
    headers: {
      origin: partner,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], partner)
  t.match(preflight.headers['access-control-allow-methods'], /POST/)
  const postFromPartner = (url: string) =>
    app.inject({ method: 'POST', url, headers: { origin: partner }, payload: {} })
  const posted = await postFromPartner('/api/__test/partner/orders')
  t.equal(posted.statusCode, 200, 'the partner may post: the route opened itself to other sites')
  t.equal(posted.headers['access-control-allow-origin'], partner)
  const stranger = await postFromPartner('/api/__test/echo')
  t.equal(stranger.statusCode, 403, 'a route that did not open itself still refuses the partner')
})
