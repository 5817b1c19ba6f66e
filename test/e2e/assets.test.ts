/**
 * What the browser fetches, page by page: every asset carries this build's `?dpl=<id>` (docs/rendering.md "Deployment id"), no
 * request leaves the test server's origin (docs/rendering.md "Assets"), and no chunk is fetched twice (with and without the
 * query, which would mean two copies of a module, e.g. of React).
 */
import t from 'tap'
import { startSuite, type RequestEntry } from './harness.ts'
import { sitePagePaths, staticPage, testPagePaths } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

/** Chromium resource types that are build assets: each must carry the deployment id. */
const assetTypes = new Set(['script', 'stylesheet', 'font'])
const assetPrefix = '/_next/static/'

function isAsset(request: RequestEntry): boolean {
  return assetTypes.has(request.resourceType) || new URL(request.url).pathname.startsWith(assetPrefix)
}

t.test('the page carries the build id', async (t) => {
  const session = await suite.open(t)
  await session.goto(staticPage.path)
  t.equal(
    await session.page.evaluate(() => document.documentElement.dataset.dplId),
    suite.deploymentId,
    '<html data-dpl-id> is the id of the build the server serves',
  )
})

t.test('asset requests, page by page', async (t) => {
  // The test build's pages, one of each kind, and the site's own (its page table).
  for (const path of [...testPagePaths, ...sitePagePaths, '/no-such-page']) {
    await t.test(path, async (t) => {
      const session = await suite.open(t)
      await session.goto(path)
      await session.settle()
      const dplId = await session.page.evaluate(() => document.documentElement.dataset.dplId)
      t.ok(dplId, `<html data-dpl-id> is set (${dplId})`)
      const { requests } = session.recording

      const offOrigin = requests.filter((request) => {
        const url = new URL(request.url)
        return url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== suite.origin
      })
      t.same(
        offOrigin.map((request) => request.url),
        [],
        'no request left the test server',
      )

      const assets = requests.filter(isAsset)
      // The stylesheet comes inside the document (docs/rendering.md "Loading order"): scripts and fonts are fetched.
      for (const type of ['script', 'font']) {
        t.ok(
          assets.some((request) => request.resourceType === type),
          `at least one ${type} was loaded (the checks below are not vacuous)`,
        )
      }
      const unstamped = assets.filter((request) => new URL(request.url).searchParams.get('dpl') !== dplId)
      t.same(
        unstamped.map((request) => `${request.resourceType} ${request.url}`),
        [],
        `every script, stylesheet and font carries ?dpl=${dplId}`,
      )

      const byPath = new Map<string, string[]>()
      for (const request of assets) {
        const pathname = new URL(request.url).pathname
        byPath.set(pathname, [...(byPath.get(pathname) ?? []), request.url])
      }
      const twice = [...byPath].filter(([, urls]) => urls.length > 1)
      t.same(
        twice.map(([pathname, urls]) => `${pathname}: ${urls.join(' , ')}`),
        [],
        'no asset was fetched twice, with or without the query',
      )
      const failed = assets.filter((request) => request.status !== 200)
      t.same(
        failed.map((request) => `${request.url} ${request.status ?? request.failure}`),
        [],
        'every asset loaded',
      )
    })
  }
})
