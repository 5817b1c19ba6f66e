import type { ComponentType } from 'react'
import { columnSizes, imageSources } from './components/image.tsx'
import type { HomeData } from './pages/home.tsx'
import { pageModules } from './page-modules.ts'

/**
 * The page table: one entry per page, shared by the server (routes, page data, sitemap) and the client (router).
 * Plain data and code-split component loaders only: server-only loaders live in src/pages/loaders.ts, keyed by id.
 */
export type PageKind = 'static' | 'dynamic'

export type RouteParams = Readonly<Record<string, string>>

/** An image the document preloads in its head (the hero of the first view), as `<img srcset sizes>` will ask for it. */
export interface HeadImagePreload {
  href: string
  srcSet: string
  sizes: string
}

export interface PageHead {
  title: string
  description?: string
  preloadImages?: readonly HeadImagePreload[]
}

export interface PageComponentProps<Data = unknown> {
  data: Data
  params: RouteParams
}

export interface PageModule {
  // Each page module types its own data; the table stores the component with the data type erased.
  default: ComponentType<PageComponentProps<never>>
}

export interface PageDefinition {
  /** Stable id: joins the server's loader, names the code chunk, travels in the hydration state. */
  id: string
  /** Fastify/find-my-way pattern, e.g. `/guides/:slug`. */
  path: string
  kind: PageKind
  /** Loads the page's code chunk (lazily on the client). The module is `client/pages/<id>.tsx`: the server finds the
   * chunk to preload by that name in the build manifest. */
  component: () => Promise<PageModule>
  /** Title and meta of the page, from its data. */
  head: (data: never, params: RouteParams) => PageHead
  /** Registered only when COURIER_TEST_ROUTES is on. */
  testOnly?: boolean
}

const siteName = 'Courier'

function titled(title: string): string {
  return `${title} · ${siteName}`
}

export const pages: readonly PageDefinition[] = [
  {
    id: 'home',
    path: '/',
    kind: 'static',
    component: pageModules.home,
    head: (data: HomeData) => {
      const hero = imageSources(data.hero.src, data.hero.width, columnSizes)
      return {
        title: `${siteName}: React delivery on Fastify`,
        description: 'Courier serves a React site with streaming server rendering, page data and a prefetching router.',
        preloadImages: [{ href: hero.src, srcSet: hero.srcSet, sizes: hero.sizes }],
      }
    },
  },
  {
    id: 'guides',
    path: '/guides',
    kind: 'static',
    component: pageModules.guides,
    head: () => ({ title: titled('Guides'), description: 'One guide per delivery mechanic of Courier.' }),
  },
  {
    id: 'guide',
    path: '/guides/:slug',
    kind: 'static',
    component: pageModules.guide,
    head: (data: { guide: { title: string; summary: string } }) => ({
      title: titled(data.guide.title),
      description: data.guide.summary,
    }),
  },
  {
    id: 'status',
    path: '/status',
    kind: 'dynamic',
    component: pageModules.status,
    head: () => ({ title: titled('Status'), description: 'Live state of this Courier server.' }),
  },
  {
    id: 'faq',
    path: '/faq',
    kind: 'static',
    component: pageModules.faq,
    head: () => ({ title: titled('FAQ'), description: 'Questions operators and developers ask about Courier.' }),
  },
  {
    id: 'gallery',
    path: '/gallery',
    kind: 'static',
    component: pageModules.gallery,
    head: () => ({ title: titled('Gallery'), description: 'Photographs served through the image optimizer.' }),
  },
  {
    id: 'test-slow',
    path: '/__test/slow',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-slow'],
    head: () => ({ title: titled('Slow boundary') }),
  },
  {
    id: 'test-server-error',
    path: '/__test/server-error',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-server-error'],
    head: () => ({ title: titled('Server error') }),
  },
  {
    id: 'test-shell-error',
    path: '/__test/shell-error',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-shell-error'],
    head: () => ({ title: titled('Shell error') }),
  },
  {
    id: 'test-late-error',
    path: '/__test/late-error',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-late-error'],
    head: () => ({ title: titled('Late error') }),
  },
  {
    id: 'test-client-error',
    path: '/__test/client-error',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-client-error'],
    head: () => ({ title: titled('Client error') }),
  },
  {
    id: 'test-links',
    path: '/__test/links',
    kind: 'dynamic',
    testOnly: true,
    component: pageModules['test-links'],
    head: () => ({ title: titled('Links') }),
  },
]

export function findPage(id: string): PageDefinition | undefined {
  return pages.find((page) => page.id === id)
}
