import t from 'tap'
import { build } from '../helpers/app.ts'
import { pageInstances, titleOf } from '../helpers/site-pages.ts'
import { escapeHtml } from '../../src/render/template.ts'

t.test('dev mode serves the same pages through Vite, with HMR', async (t) => {
  const { app } = await build(t, { COURIER_DEV: 'true' })
  t.equal(app.deploymentId, 'development')
  // The site's first page without parameters, with the title its head gives for its loader's data.
  const first = (await pageInstances({ firstOnly: true })).find(({ page }) => !page.path.includes(':'))!
  const page = await app.inject(first.url)
  t.equal(page.statusCode, 200)
  t.match(page.body, `<title>${escapeHtml(await titleOf(first))}</title>`, 'rendered on the server from the sources')
  t.match(page.body, /<main[^>]*>[\s\S]*?<h1[^>]*>[^<]/, 'with its content')
  t.match(page.body, '/_next/static/@vite/client', 'the HMR client is in the page')
  t.match(page.body, 'data-dpl-id="development"')
  const module = await app.inject('/_next/static/entry-client.tsx')
  t.equal(module.statusCode, 200, 'Vite serves the client sources')
  t.match(module.headers['content-type'], /javascript/)
  const missing = await app.inject('/no-such-page')
  t.equal(missing.statusCode, 404)
  t.match(missing.body, '404: This page could not be found')
})
