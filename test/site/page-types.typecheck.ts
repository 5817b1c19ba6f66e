/**
 * Type-level tests of the page module (client/page.ts, src/common/page-types.ts), checked by `npm run typecheck` (tsc):
 * every `@ts-expect-error` line below must be an error, or tsc fails with "Unused '@ts-expect-error' directive". The
 * lines without one are the declarations that must compile. Nothing here runs. Each `const ...Server` stands for a
 * page's server half (`import type * as server from './<id>.server.ts'`, then `typeof server`).
 */
import { defineLoader, definePage, defineRequestLoader, type PageProps } from '../../client/page.ts'

// A page with data and a route parameter: its loader's props flow to its head and its component.
const itemServer = {
  load: defineLoader(({ params }) => (params.id === '1' ? { props: { name: 'Lamp', price: 30 } } : { notFound: true })),
}
export const itemPage = definePage<typeof itemServer>({
  path: '/items/:id',
  kind: 'dynamic',
  head: (data) => ({ title: `${data.name}: ${data.price}` }),
})
export const ItemComponent = ({ data }: PageProps<typeof itemServer>) => data.name.toUpperCase() + data.price.toFixed(2)

// A page without data: no server half, its head reads nothing.
export const aboutPage = definePage({ path: '/about', kind: 'static', head: () => ({ title: 'About' }) })

// A head that reads another data shape than the loader gives.
// @ts-expect-error: the item's data has no 'title'
export const wrongHead = definePage<typeof itemServer>({ path: '/items/:id', kind: 'dynamic', head: (data) => ({ title: data.title }) })

// A component that draws another data shape than the loader gives.
// @ts-expect-error: property 'price' of type number has no 'toUpperCase'
export const WrongComponent = ({ data }: PageProps<typeof itemServer>) => data.price.toUpperCase()

// A head of a page without data that reads data.
// @ts-expect-error: a page without data gives its head no 'title'
export const headWithoutData = definePage({ path: '/about', kind: 'static', head: (data) => ({ title: data.title }) })

// A head without a title.
// @ts-expect-error: property 'title' is missing
export const headWithoutTitle = definePage({ path: '/about', kind: 'static', head: () => ({ description: 'About' }) })

// A kind that is not one.
// @ts-expect-error: type '"kept"' is not assignable to type 'PageKind'
export const unknownKind = definePage({ path: '/about', kind: 'kept', head: () => ({ title: 'About' }) })

// A loader whose answer is neither props, a redirect nor not-found.
// @ts-expect-error: an answer has `props`, `redirect` or `notFound`
export const strayAnswer = defineLoader(() => ({ properties: { name: 'Lamp' } }))

// Route parameters are strings.
// @ts-expect-error: type 'string | undefined' is not assignable to type 'number'
export const numericParam = defineLoader(({ params }) => ({ props: { id: params.id satisfies number } }))

// Partial prerendering: a server half with `keep` and `load` is a partly prerendered page, declared
// `prerender: 'partial'` on a `dynamic` page, and a page without both cannot be.
const newsServer = {
  keep: defineLoader(() => ({ props: { headline: 'Lamps' } })),
  load: defineLoader(() => ({ props: { readers: 3 } })),
}
export const newsPage = definePage<typeof newsServer>({
  path: '/news',
  kind: 'dynamic',
  prerender: 'partial',
  head: (data) => ({ title: data.kept.headline }),
})
export const NewsComponent = ({ data }: PageProps<typeof newsServer>) =>
  'value' in data.live ? data.live.value.readers.toFixed(0) : data.kept.headline

// A partly prerendered page's data on a page not declared partly prerendered.
// @ts-expect-error: property 'prerender' is missing
export const partialUndeclared = definePage<typeof newsServer>({ path: '/news', kind: 'dynamic', head: () => ({ title: 'News' }) })

// A partly prerendered static page.
// @ts-expect-error: type '"static"' is not assignable to type '"dynamic"'
export const partialStatic = definePage<typeof newsServer>({ path: '/news', kind: 'static', prerender: 'partial', head: () => ({ title: 'News' }) })

// `prerender: 'partial'` on a page with one loader, as a dynamic page has.
// @ts-expect-error: the page's `prerender` may only be undefined
export const partialOneLoader = definePage<typeof itemServer>({ path: '/items/:id', kind: 'dynamic', prerender: 'partial', head: () => ({ title: 'Item' }) })

// A server half that exports a loader of another shape than a loader.
// @ts-expect-error: 'load' is not a Loader
export const notALoader = definePage<{ load: (count: number) => string }>({ path: '/x', kind: 'static', head: () => ({ title: 'X' }) })

// A per-user page: its loader reads the request (`defineRequestLoader`), so it is `dynamic`, never kept.
const accountServer = {
  load: defineRequestLoader(({ request }) => ({ props: { name: request.cookies.name ?? 'nobody' } })),
}
export const accountPage = definePage<typeof accountServer>({
  path: '/account',
  kind: 'dynamic',
  head: (data) => ({ title: data.name }),
})

// Declared static: its answer would be kept and shared by every visitor.
// @ts-expect-error: type '"static"' is not assignable to type '"dynamic"'
export const accountStatic = definePage<typeof accountServer>({ path: '/account', kind: 'static', head: () => ({ title: 'Account' }) })

// A kept loader has no request to read.
// @ts-expect-error: property 'request' does not exist on a kept loader's context
export const keptReadsRequest = defineLoader(({ request }) => ({ props: { name: String(request) } }))

// A partly prerendered page's shell loader may not read the request: its holes' loader may.
const dashboardServer = { keep: defineLoader(() => ({ props: { title: 'Dashboard' } })), load: accountServer.load }
export const dashboardPage = definePage<typeof dashboardServer>({
  path: '/dashboard',
  kind: 'dynamic',
  prerender: 'partial',
  head: (data) => ({ title: data.kept.title }),
})
// @ts-expect-error: `keep` must be a kept loader, which reads no request
export const shellReadsRequest = definePage<{ keep: typeof accountServer.load; load: typeof accountServer.load }>({ path: '/d', kind: 'dynamic', prerender: 'partial', head: () => ({ title: 'D' }) })
