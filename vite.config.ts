import { defineConfig, type UserConfig } from 'vite'
import react from '@vitejs/plugin-react'
import { viteFastify } from '@fastify/vite/plugin'
import path from 'node:path'
import { browserTargets } from './config/browsers.ts'
import { defaultDistDir } from './config/env.ts'
import { deploymentId } from './src/build/deployment-id.ts'
import { precompress } from './src/build/precompress.ts'
import { fontPreload } from './src/build/font-preload.ts'
import { fontSubset } from './src/build/font-subset.ts'
import { coreFontRanges } from './config/fonts.ts'
import { pageDeclarations } from './src/build/page-declarations.ts'
import { pageManifest } from './src/build/page-manifest.ts'
import { pageFolders } from './src/pages/page-files.ts'
import { serverBuild } from './src/build/server-build.ts'
import { hashSources, listBuildSources } from './src/build/source-hash.mjs'
import { assetBase, noncePlaceholderValue } from './src/render/template.ts'

/**
 * `vite build --app` makes the production build (dist/); with COURIER_BUILD=test (`npm run build:test`) the test
 * build (dist-test/): the same site plus the test pages of test/site/, which a production build never holds. (Not a
 * Vite mode: @fastify/vite writes the build's vite.config.json in the `production` mode only.)
 */
export default defineConfig((): UserConfig => {
  // The dev server (`COURIER_TEST_ROUTES=true npm run dev`) serves the test pages the same way.
  const testBuild = process.env.COURIER_BUILD === 'test' || process.env.COURIER_TEST_ROUTES === 'true'
  const root = import.meta.dirname
  const outDir = path.resolve(root, process.env.DIST_DIR ?? defaultDistDir(testBuild))
  return {
    root: path.resolve(import.meta.dirname, 'client'),
    // Built assets live under /_next/static/ (docs/rendering.md "Assets"); public files are served by Fastify, not copied.
    base: assetBase,
    publicDir: false,
    // Vite marks every tag it writes with this; the server swaps it for the request's CSP nonce.
    html: { cspNonce: noncePlaceholderValue },
    build: {
      outDir,
      assetsDir: 'chunks',
      emptyOutDir: true,
      target: [...browserTargets],
      // No modulepreload polyfill in the entry: every browser since Firefox 115 and Safari 17 (2023) follows
      // `<link rel=modulepreload>` itself; in older ones a page chunk loads when the entry imports it, one round trip
      // later, and nothing breaks (docs/client-bundle.md).
      modulePreload: { polyfill: false },
      rolldownOptions: {
        // config/ files freeze their plain data: a frozen object the client never reads (server-only limits in the
        // same file) is dropped from the client bundle like any unused value.
        treeshake: { manualPureFunctions: ['Object.freeze'] },
      },
    },
    environments: {
      // @fastify/vite loads the SSR bundle by the entry's own name (entry-server.js).
      ssr: { build: { target: 'node26', rollupOptions: { output: { entryFileNames: 'entry-server.js' } } } },
    },
    plugins: [
      viteFastify({ clientModule: '/entry-server.tsx' }),
      react(),
      fontSubset({
        source: '@fontsource-variable/inter/files/inter-latin-wght-normal.woff2',
        id: 'courier-font/inter-core-wght-normal.woff2',
        ranges: coreFontRanges,
        cacheDir: path.resolve(root, 'node_modules', '.cache', 'courier-fonts'),
      }),
      fontPreload({ match: /inter-core-wght-normal-[\w-]+\.woff2$/ }),
      deploymentId({ deploymentId: process.env.DEPLOYMENT_ID || undefined, outDir }),
      precompress(),
      pageManifest({ root, testPages: testBuild }),
      pageDeclarations({ root, folders: pageFolders(testBuild) }),
      // Last: the server, compiled once the client's deployment id is known (`npm start` runs <outDir>/node/server.js).
      serverBuild({
        root,
        outDir,
        // Hashed before anything is written; the test build is made from the test pages too.
        sourceHash: hashSources(root, testBuild ? [...listBuildSources(root), 'test/site'] : listBuildSources(root)),
        testPages: testBuild,
      }),
    ],
  }
})
