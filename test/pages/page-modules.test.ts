/**
 * The page module convention (docs/your-site.md): which files of a page folder are pages, what a page module and its
 * server half must export, the order pages match in, and the sitemap's choice. Every mistake is an error that names
 * the file, at start (the server) and at build (the client's manifest, src/build/page-manifest.ts).
 */
import t, { type Test } from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { pageManifest } from '../../src/build/page-manifest.ts'
import type { PageDeclared } from '../../src/common/page-types.ts'
import { listPageFiles, sitePageFolder } from '../../src/pages/page-files.ts'
import type { PageSource } from '../../src/pages/page-sources.ts'
import { joinPageSources, publicPagesOf } from '../../src/pages/site.ts'

const Component = () => null

function source(id: string, page: Partial<PageDeclared> | undefined, server?: Record<string, unknown>): PageSource {
  const head = () => ({ title: id })
  return {
    id,
    file: `site/pages/${id}.tsx`,
    serverFile: server ? `site/pages/${id}.server.ts` : undefined,
    module: page === undefined ? { default: Component } : { default: Component, page: { head, ...page } },
    server,
  }
}

/** A project with `files` (path -> text) under site/pages/, removed on teardown; inside this one's node_modules, so
 * its modules resolve `react` as the site's do. */
function project(t: Test, files: Record<string, string>): string {
  const cache = path.join(projectRoot, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  const root = mkdtempSync(path.join(cache, 'courier-page-modules-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(path.join(root, sitePageFolder), { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(root, sitePageFolder, name), text)
  return root
}

t.test('a page folder: <id>.tsx pages, <id>.server.ts halves beside them, nothing else', async (t) => {
  const root = project(t, { 'about.tsx': '', 'team.tsx': '', 'team.server.ts': '' })
  t.same(listPageFiles(root, [sitePageFolder]), [
    { id: 'about', file: 'site/pages/about.tsx', serverFile: undefined },
    { id: 'team', file: 'site/pages/team.tsx', serverFile: 'site/pages/team.server.ts' },
  ])
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ 'notes.ts': '' }, /site\/pages\/notes\.ts: not a page/],
    [{ 'team.server.ts': '' }, /site\/pages\/team\.server\.ts: a server half without its page module/],
    [{ 'Team.tsx': '' }, /site\/pages\/Team\.tsx: a page id/],
    [{ 'team_members.tsx': '' }, /site\/pages\/team_members\.tsx: a page id/],
    [{ 'team.before.tsx': '' }, /site\/pages\/team\.before\.tsx: a page id/],
  ]
  for (const [files, message] of cases) {
    t.throws(() => listPageFiles(project(t, files), [sitePageFolder]), {
      code: 'COURIER_ERR_PAGE_MODULE_INVALID',
      message,
    })
  }
})

t.test('a page module and its server half are checked, each error naming the file', async (t) => {
  const load = () => ({ props: {} })
  const cases: Array<[PageSource, RegExp]> = [
    [source('about', undefined), /site\/pages\/about\.tsx: no `page` export/],
    [
      {
        ...source('about', { path: '/about', kind: 'static' }),
        module: { page: { path: '/about', kind: 'static', head: () => ({ title: '' }) } },
      },
      /about\.tsx: no default export/,
    ],
    [source('about', { path: 'about', kind: 'static' }), /about\.tsx: `page\.path` is not a path/],
    [source('about', { path: '/about', kind: 'kept' as 'static' }), /about\.tsx: `page\.kind` is neither/],
    [
      source('about', { path: '/about', kind: 'static', head: 'About' as unknown as PageDeclared['head'] }),
      /`page\.head` is not a function/,
    ],
    [
      source('team', { path: '/team', kind: 'static' }, { loader: load }),
      /site\/pages\/team\.server\.ts: exports loader; a server half exports load, keep, action, staticParams, lastModified only/,
    ],
    [
      source('team', { path: '/team', kind: 'static' }, { load: { props: {} } }),
      /team\.server\.ts: `load` is not a function/,
    ],
    [
      source('news', { path: '/news', kind: 'dynamic', prerender: 'partial' }, { load }),
      /news\.server\.ts: a partly prerendered page/,
    ],
    [
      source('news', { path: '/news', kind: 'dynamic' }, { keep: load, load }),
      /news\.server\.ts: a partly prerendered page/,
    ],
  ]
  for (const [page, message] of cases) {
    t.throws(() => joinPageSources([page]), { code: 'COURIER_ERR_PAGE_MODULE_INVALID', message })
  }
  t.throws(
    () =>
      joinPageSources([
        source('member', { path: '/team/:slug', kind: 'static' }),
        source('person', { path: '/team/:name', kind: 'static' }),
      ]),
    { message: /site\/pages\/person\.tsx: its path is site\/pages\/member\.tsx's too/ },
  )
})

t.test('pages match literal segments before parameters, whatever their file names', async (t) => {
  const pages = joinPageSources([
    source('a-member', { path: '/team/:slug', kind: 'static' }),
    source('b-join', { path: '/team/join', kind: 'static' }),
    source('c-home', { path: '/', kind: 'static' }),
    source('d-team', { path: '/team', kind: 'static' }),
  ])
  t.same(
    pages.map((page) => page.path),
    ['/', '/team', '/team/join', '/team/:slug'],
  )
})

t.test("a page declared `sitemap: false` and the test build's pages stay out of the sitemap", async (t) => {
  const sources = [
    source('about', { path: '/about', kind: 'static' }),
    source('thanks', { path: '/thanks', kind: 'static', sitemap: false }),
    { ...source('test-static', { path: '/__test/static', kind: 'static' }), file: 'test/site/pages/test-static.tsx' },
  ]
  t.same(
    publicPagesOf(joinPageSources(sources), sources).map((page) => page.id),
    ['about'],
  )
  const perUser = Object.assign(() => ({ props: {} }), { perRequest: true as const })
  const accounts = [
    source('account', { path: '/account', kind: 'dynamic' }, { load: perUser }),
    source('profile', { path: '/profile', kind: 'dynamic', sitemap: true }, { load: perUser }),
  ]
  t.same(
    publicPagesOf(joinPageSources(accounts), accounts).map((page) => page.id),
    ['profile'],
    'a per-user page leaves the sitemap unless it says `sitemap: true`',
  )
})

t.test('the build fails on a page that breaks the convention, naming its file', async (t) => {
  const root = project(t, {
    'about.tsx': 'export default function About() { return null }\n',
  })
  const plugin = pageManifest({ root, testPages: false })
  const context = { addWatchFile: () => undefined }
  const load = plugin.load as unknown as (this: typeof context, id: string) => Promise<string | undefined>
  await t.rejects(load.call(context, '\0virtual:courier/page-routes'), {
    code: 'COURIER_ERR_PAGE_MODULE_INVALID',
    message: /site\/pages\/about\.tsx: no `page` export/,
  })
  const fixed = project(t, {
    'about.tsx':
      "export const page = { path: '/about', kind: 'static', revalidate: 5, head: () => ({ title: 'About' }) }\n" +
      'export default function About() { return <p>About</p> }\n',
  })
  const fixedLoad = (id: string) =>
    (pageManifest({ root: fixed, testPages: false }).load as unknown as typeof load).call(context, id)
  const routes = await fixedLoad('\0virtual:courier/page-routes')
  t.equal(
    routes,
    'export const pages = [{"id":"about","path":"/about","kind":"static","revalidate":5}]\n',
    'paths and kinds, no head',
  )
  const modules = await fixedLoad('\0virtual:courier/page-modules')
  t.match(modules, `"about": () => import(${JSON.stringify(path.join(fixed, sitePageFolder, 'about.tsx'))})`)
})
