/**
 * Type-level tests of the typed page declaration (src/common/page-types.ts), checked by `npm run typecheck` (tsc): every
 * `@ts-expect-error` line below must be an error, or tsc fails with "Unused '@ts-expect-error' directive". The lines
 * without one are the declarations that must compile. Nothing here runs.
 */
import type { SitePageData } from '../../site/data-types.ts'
import type {
  ComponentTable,
  LoaderTable,
  NoData,
  PageComponentProps,
  PageTable,
  PartialData,
} from '../../src/common/page-types.ts'
import { pageTable } from '../../site/pages.ts'
import { pageLoaders } from '../../src/pages/loaders.ts'

/** A small site: a page with data and a route parameter, and a page without data. */
interface ShopData {
  item: { name: string; price: number }
  about: NoData
}

const ItemPage = ({ data }: PageComponentProps<{ name: string; price: number }>) => `${data.name}: ${data.price}`
const AboutPage = () => 'About'
const PricePage = ({ data }: PageComponentProps<{ price: string }>) => data.price

const item = { name: 'Lamp', price: 30 }

// Complete and consistent: compiles.
export const shopPages = {
  item: { path: '/items/:id', kind: 'dynamic', head: (data) => ({ title: data.name }) },
  about: { path: '/about', kind: 'static', head: () => ({ title: 'About' }) },
} satisfies PageTable<ShopData>
export const shopLoaders = {
  item: { load: ({ params }) => (params.id === '1' ? { props: item } : { notFound: true }) },
  about: {},
} satisfies LoaderTable<ShopData>
export const shopComponents = {
  item: () => Promise.resolve({ default: ItemPage }),
  about: () => Promise.resolve({ default: AboutPage }),
} satisfies ComponentTable<ShopData>

// A page missing from the page table.
// @ts-expect-error: property 'about' is missing
export const pageMissing = { item: shopPages.item } satisfies PageTable<ShopData>

// A head that reads another data shape than the page's.
// @ts-expect-error: the item's data has no 'title'
export const wrongHead = { ...shopPages, item: { ...shopPages.item, head: (data: { title: string }) => ({ title: data.title }) } } satisfies PageTable<ShopData>

// A page with data and no loader.
// @ts-expect-error: property 'item' is missing
export const loaderMissing = { about: {} } satisfies LoaderTable<ShopData>

// A page with data whose entry has no `load`.
// @ts-expect-error: property 'load' is missing
export const loadMissing = { item: {}, about: {} } satisfies LoaderTable<ShopData>

// A loader whose data is not the shape the page's component and head read.
// @ts-expect-error: type 'string' is not assignable to type 'number'
export const wrongProps = { item: { load: () => ({ props: { name: 'Lamp', price: '30' } }) }, about: {} } satisfies LoaderTable<ShopData>

// A loader for a page the site does not have.
// @ts-expect-error: object literal may only specify known properties
export const strayLoader = { ...shopLoaders, basket: { load: () => ({ props: {} }) } } satisfies LoaderTable<ShopData>

// A page without a component.
// @ts-expect-error: property 'about' is missing
export const componentMissing = { item: shopComponents.item } satisfies ComponentTable<ShopData>

// A component that draws another data shape than the page's loader gives.
// @ts-expect-error: the item's data has no 'price' of type string
export const wrongComponent = { item: () => Promise.resolve({ default: PricePage }), about: shopComponents.about } satisfies ComponentTable<ShopData>

// Partial prerendering: a page whose data is `PartialData` is declared `prerender: 'partial'` on a `dynamic` page, and
// a page whose data is not cannot be.
interface NewsData {
  news: PartialData<{ headline: string }, { readers: number }>
  about: NoData
}
export const newsPages = {
  news: { path: '/news', kind: 'dynamic', prerender: 'partial', head: (data) => ({ title: data.kept.headline }) },
  about: { path: '/about', kind: 'static', head: () => ({ title: 'About' }) },
} satisfies PageTable<NewsData>
export const newsLoaders = {
  news: { keep: () => ({ props: { headline: 'Lamps' } }), load: () => ({ props: { readers: 3 } }) },
  about: {},
} satisfies LoaderTable<NewsData>

// A partly prerendered page's data on a page not declared partly prerendered.
// @ts-expect-error: property 'prerender' is missing
export const partialUndeclared = { ...newsPages, news: { path: '/news', kind: 'dynamic', head: () => ({ title: 'News' }) } } satisfies PageTable<NewsData>

// A partly prerendered static page.
// @ts-expect-error: type '"static"' is not assignable to type '"dynamic"'
export const partialStatic = { ...newsPages, news: { ...newsPages.news, kind: 'static' } } satisfies PageTable<NewsData>

// `prerender: 'partial'` on a page whose data is not `PartialData`.
// @ts-expect-error: the page's `prerender` may only be undefined
export const partialWithoutPartialData = { ...shopPages, item: { ...shopPages.item, prerender: 'partial' } } satisfies PageTable<ShopData>

// A partly prerendered page with one loader, as a dynamic page has.
// @ts-expect-error: property 'keep' is missing
export const partialOneLoader = { ...newsLoaders, news: { load: () => ({ props: { readers: 3 } }) } } satisfies LoaderTable<NewsData>

// The site's own tables: complete, and an entry removed is an error. The home page (`/`) is the one page every site
// keeps; the other pages are the site's to change (docs/your-site.md).
export const siteChecked = [pageTable satisfies PageTable<SitePageData>, pageLoaders satisfies LoaderTable<SitePageData>]
const { home: _homeLoader, ...loadersWithoutHome } = pageLoaders
// @ts-expect-error: property 'home' is missing
export const siteLoaderMissing = loadersWithoutHome satisfies LoaderTable<SitePageData>
const { home: _homePage, ...pagesWithoutHome } = pageTable
// @ts-expect-error: property 'home' is missing
export const sitePageMissing = pagesWithoutHome satisfies PageTable<SitePageData>
