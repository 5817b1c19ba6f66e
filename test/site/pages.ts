import { titled, type PageDefinition } from '../../site/pages.ts'
import type { PageModule } from '../../client/page-modules.ts'

/**
 * The test build's pages (`/__test/...`): streaming and error paths the suites drive. They exist only in a test build
 * (`npm run build:test`, served with COURIER_TEST_ROUTES=true); the production build and its page table hold none.
 */
export const testPages: readonly PageDefinition[] = [
  { id: 'test-slow', path: '/__test/slow', kind: 'dynamic', head: () => ({ title: titled('Slow boundary') }) },
  { id: 'test-server-error', path: '/__test/server-error', kind: 'dynamic', head: () => ({ title: titled('Server error') }) },
  { id: 'test-shell-error', path: '/__test/shell-error', kind: 'dynamic', head: () => ({ title: titled('Shell error') }) },
  { id: 'test-late-error', path: '/__test/late-error', kind: 'dynamic', head: () => ({ title: titled('Late error') }) },
  { id: 'test-client-error', path: '/__test/client-error', kind: 'dynamic', head: () => ({ title: titled('Client error') }) },
  { id: 'test-links', path: '/__test/links', kind: 'dynamic', head: () => ({ title: titled('Links') }) },
]

/** Their code chunks, by page id (the chunk names say `test-` so the server finds them in the build manifest). */
export const testPageModules: Readonly<Record<string, () => Promise<PageModule>>> = {
  'test-slow': () => import('./pages/test-slow.tsx'),
  'test-server-error': () => import('./pages/test-server-error.tsx'),
  'test-shell-error': () => import('./pages/test-shell-error.tsx'),
  'test-late-error': () => import('./pages/test-late-error.tsx'),
  'test-client-error': () => import('./pages/test-client-error.tsx'),
  'test-links': () => import('./pages/test-links.tsx'),
}
