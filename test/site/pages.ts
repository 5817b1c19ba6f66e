import type { ComponentTable, NoData, PageTable } from '../../src/common/page-types.ts'
import { listPages, titled } from '../../site/pages.ts'
import type { SlowData } from './pages/test-slow.tsx'
import type { LateErrorData } from './pages/test-late-error.tsx'
import type { TestLinksData } from './pages/test-links.tsx'
import type { TestImagesData } from './pages/test-images.tsx'
import type { PartialPageData } from './pages/test-partial.tsx'
import type { DynamicData } from './pages/test-dynamic.tsx'
import type { FilterData } from './pages/test-filter.tsx'
import type { TestGuidesData } from './pages/test-guides.tsx'
import type { TestGuideData } from './pages/test-guide.tsx'

/**
 * The test build's pages (`/__test/...`): streaming and error paths the suites drive. They exist only in a test build
 * (`npm run build:test`, served with COURIER_TEST_ROUTES=true); the production build and its page table hold none.
 * Declared as the site's are (src/common/page-types.ts): one map of page id -> data type, three tables checked against it.
 */
export interface TestPageData {
  'test-slow': SlowData
  'test-server-error': NoData
  'test-shell-error': NoData
  'test-late-error': LateErrorData
  'test-client-error': NoData
  'test-links': TestLinksData
  'test-images': TestImagesData
  'test-partial': PartialPageData
  'test-static': NoData
  'test-dynamic': DynamicData
  'test-filter': FilterData
  'test-guides': TestGuidesData
  'test-guide': TestGuideData
}

export const testPageTable = {
  'test-slow': { path: '/__test/slow', kind: 'dynamic', head: () => ({ title: titled('Slow boundary') }) },
  'test-server-error': {
    path: '/__test/server-error',
    kind: 'dynamic',
    head: () => ({ title: titled('Server error') }),
  },
  'test-shell-error': { path: '/__test/shell-error', kind: 'dynamic', head: () => ({ title: titled('Shell error') }) },
  'test-late-error': { path: '/__test/late-error', kind: 'dynamic', head: () => ({ title: titled('Late error') }) },
  'test-client-error': {
    path: '/__test/client-error',
    kind: 'dynamic',
    head: () => ({ title: titled('Client error') }),
  },
  'test-links': { path: '/__test/links', kind: 'dynamic', head: () => ({ title: titled('Links') }) },
  'test-images': { path: '/__test/images', kind: 'dynamic', head: () => ({ title: titled('Images') }) },
  'test-partial': {
    path: '/__test/partial',
    kind: 'dynamic',
    prerender: 'partial',
    head: () => ({ title: titled('Partial') }),
  },
  // The pages the browser suite navigates between (test/e2e/test-pages.ts), each with the test pages' navigation.
  'test-static': { path: '/__test/static', kind: 'static', head: () => ({ title: titled('Static') }) },
  'test-dynamic': { path: '/__test/dynamic', kind: 'dynamic', head: () => ({ title: titled('Dynamic') }) },
  'test-filter': {
    path: '/__test/filter',
    kind: 'static',
    revalidate: 60,
    head: () => ({ title: titled('Filter') }),
  },
  // Those that read the guides of the content (CONTENT_DIR), kept and fresh within a minute of an edit as a site's
  // content pages are: a list and a page per guide, which the other suites drive too (test/helpers/site-pages.ts).
  'test-guides': {
    path: '/__test/guides',
    kind: 'static',
    revalidate: 60,
    head: () => ({ title: titled('Guides of the content') }),
  },
  'test-guide': {
    path: '/__test/guides/:slug',
    kind: 'static',
    revalidate: 60,
    head: (data) => ({ title: titled(data.guide.title), description: data.guide.summary }),
  },
} satisfies PageTable<TestPageData>

export const testPages = listPages(testPageTable)

/** Their code chunks, by page id (the chunk names say `test-` so the server finds them in the build manifest). */
export const testPageModules = {
  'test-slow': () => import('./pages/test-slow.tsx'),
  'test-server-error': () => import('./pages/test-server-error.tsx'),
  'test-shell-error': () => import('./pages/test-shell-error.tsx'),
  'test-late-error': () => import('./pages/test-late-error.tsx'),
  'test-client-error': () => import('./pages/test-client-error.tsx'),
  'test-links': () => import('./pages/test-links.tsx'),
  'test-images': () => import('./pages/test-images.tsx'),
  'test-partial': () => import('./pages/test-partial.tsx'),
  'test-static': () => import('./pages/test-static.tsx'),
  'test-dynamic': () => import('./pages/test-dynamic.tsx'),
  'test-filter': () => import('./pages/test-filter.tsx'),
  'test-guides': () => import('./pages/test-guides.tsx'),
  'test-guide': () => import('./pages/test-guide.tsx'),
} satisfies ComponentTable<TestPageData>
