import t from 'tap'
import { build } from '../helpers/app.ts'
import { guides } from '../helpers/content.ts'

t.test('dev mode serves the same pages through Vite, with HMR', async (t) => {
  const { app } = await build(t, { COURIER_DEV: 'true' })
  t.equal(app.deploymentId, 'development')
  // A guide of the tests' own content (test/helpers/content.ts), drawn by the site's guide page.
  const page = await app.inject(`/guides/${guides[0]!.slug}`)
  t.equal(page.statusCode, 200)
  t.match(page.body, `<h1>${guides[0]!.title}</h1>`, 'rendered on the server from the sources')
  t.match(page.body, '/_next/static/@vite/client', 'the HMR client is in the page')
  t.match(page.body, 'data-dpl-id="development"')
  const module = await app.inject('/_next/static/entry-client.tsx')
  t.equal(module.statusCode, 200, 'Vite serves the client sources')
  t.match(module.headers['content-type'], /javascript/)
  const missing = await app.inject('/no-such-page')
  t.equal(missing.statusCode, 404)
  t.match(missing.body, '404: This page could not be found')
})
