/**
 * A per-user page (docs/forms.md): a loader that reads the request makes its page the visitor's own, never kept,
 * shared or cached publicly; a kept page's loader that reads the request fails instead of keeping one visitor's data.
 */
import t from 'tap'
import { build } from '../helpers/app.ts'
import { testPage } from '../helpers/page-table.ts'
import { testRoutes } from '../helpers/site-pages.ts'
import { loadSite, type ServerPage } from '../../src/pages/site.ts'
import type { PageSource } from '../../src/pages/page-sources.ts'
import { joinPageSources } from '../../src/pages/site.ts'
import { defineLoader, defineRequestLoader } from '../../client/page.ts'

const visitorPath = testPage('test-visitor').path
const dataUrl = (deploymentId: string) => `/_next/data/${deploymentId}${visitorPath}.json`

t.test('each visitor gets their own page and data, private, varying by Cookie, never kept', async (t) => {
  const { app } = await build(t, testRoutes)
  for (const visitor of ['ada', 'grace', 'ada', 'linus']) {
    const page = await app.inject({ url: visitorPath, headers: { 'x-visitor': visitor } })
    t.equal(page.statusCode, 200)
    t.match(page.body, `<span data-testid="visitor">${visitor}</span>`, `${visitor}'s document names them`)
    t.equal(page.headers['cache-control'], 'private, no-cache, no-store, max-age=0, must-revalidate')
    t.match(page.headers.vary, /\bCookie\b/, 'the document varies by Cookie')
    t.notOk(page.headers.etag, 'no ETag to share')
    const data = await app.inject({ url: dataUrl(app.deploymentId), headers: { 'x-visitor': visitor } })
    t.same(data.json().pageProps, { visitor }, `${visitor}'s data names them`)
    t.equal(data.headers['cache-control'], 'private, no-cache, no-store, max-age=0, must-revalidate')
    t.match(data.headers.vary, /\bCookie\b/, 'the data varies by Cookie')
  }
  const anonymous = await app.inject(visitorPath)
  t.match(anonymous.body, '<span data-testid="visitor">nobody</span>', 'no visitor: nobody, not the last one')
})

t.test("a kept page's loader that reads the request fails, and keeps nothing", async (t) => {
  const { pages, publicPages } = await loadSite(true)
  const statics = testPage('test-static')
  let runs = 0
  const leaking: ServerPage = {
    ...statics,
    load: (context) => {
      runs++
      return { props: { who: context.request?.headers['x-visitor'] } }
    },
  }
  const site = { pages: pages.map((page) => (page.id === statics.id ? leaking : page)), publicPages }
  const { app, logs } = await build(t, testRoutes, { site })
  for (const visitor of ['ada', 'grace']) {
    const response = await app.inject({ url: statics.path, headers: { 'x-visitor': visitor } })
    t.equal(response.statusCode, 500, `${visitor}: a 500, not somebody's page`)
    t.notMatch(response.body, visitor)
  }
  t.ok(runs >= 1, 'the loader ran (a failed first load is retried after a back-off, never kept as a page)')
  const failure = logs().find((line) => (line.err as { code?: string } | undefined)?.code !== undefined)
  t.equal((failure?.err as { code?: string }).code, 'COURIER_ERR_PAGE_REQUEST_IN_KEPT_LOADER', 'logged with its code')
})

t.test('a static page or a shell whose loader reads the request is refused at start, naming the file', async (t) => {
  const component = () => null
  const head = () => ({ title: 'Account' })
  const source = (page: object, server: Record<string, unknown>): PageSource => ({
    id: 'account',
    file: 'site/pages/account.tsx',
    serverFile: 'site/pages/account.server.ts',
    module: { default: component, page: { head, ...page } },
    server,
  })
  const perUser = defineRequestLoader(({ request }) => ({ props: { name: String(request.cookies.name) } }))
  t.throws(() => joinPageSources([source({ path: '/account', kind: 'static' }, { load: perUser })]), {
    code: 'COURIER_ERR_PAGE_MODULE_INVALID',
    message: /account\.server\.ts: `load` reads the request \(a per-user page\) but the page is declared static/,
  })
  const shell = { path: '/account', kind: 'dynamic', prerender: 'partial' }
  t.throws(() => joinPageSources([source(shell, { keep: perUser, load: perUser })]), {
    message: /account\.server\.ts: `keep` reads the request, but a shell is kept for every visitor/,
  })
  const fine = joinPageSources([source(shell, { keep: defineLoader(() => ({ props: {} })), load: perUser })])
  t.equal(fine.length, 1, "a partly prerendered page may read the request in its holes' loader")
  t.ok(joinPageSources([source({ path: '/account', kind: 'dynamic' }, { load: perUser })]), 'a dynamic page may')
})
