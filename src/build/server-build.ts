import { readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import path from 'node:path'
import { build, type Plugin as RolldownPlugin } from 'rolldown'
import type { Plugin } from 'vite'
import type { ServerBuildStamp } from './build-stamp.ts'
import { deploymentManifestName, type DeploymentManifest } from './deployment-id.ts'
import { serverManifestName } from './source-hash.mjs'
import { listPageFiles, pageFolders, testPageFolder, type PageFile } from '../pages/page-files.ts'
import { listSiteRouteFiles, siteRouteFolders, testRouteFolder } from '../site-route-files.ts'

export interface ServerBuildOptions {
  /** The project root: holds src/server.ts. */
  root: string
  /** The build's root output folder: the server goes to `<outDir>/node/`, beside client/ and server/. */
  outDir: string
  /** The hash of the sources this build is made from (src/build/source-hash.mjs). */
  sourceHash: string
  /** The test build: its server bundles the test pages of test/site/pages/ (served with COURIER_TEST_ROUTES). */
  testPages: boolean
}

/** What `<outDir>/node/build.json` holds: read by `npm start`'s build check (src/build/ensure-build.mjs). */
export interface ServerManifest extends ServerBuildStamp {
  entry: string
}

/**
 * Packages the compiled server imports from node_modules at run time instead of bundling them, each for a reason:
 * - react, react-dom: the SSR entry (dist/server/) imports them too; two copies of React break its hooks;
 * - sharp: a native addon, loaded on the first image transform;
 * - undici: loaded on the first remote image only;
 * - pino-pretty: only for a terminal (src/main.ts), where it is a stream rather than a transport;
 * - vite and its plugins: the dev server only (`COURIER_DEV`), never loaded by a production start;
 * - @opentelemetry/*, @fastify/otel: tracing (OTEL_* set) only, imported on start-up then and never otherwise; one
 *   copy of @opentelemetry/api for Courier and @fastify/otel, which finds the SDK through its globals.
 * Every other package (fastify, its plugins, ajv, pino, ...) is bundled: Node then resolves and reads a handful of
 * files at start-up instead of some 800, which was most of a cold start. pino too, since no transport is used (its
 * twenty files from node_modules were 10-20 ms of a start).
 */
export const externalPackages: readonly string[] = Object.freeze([
  'react',
  'react-dom',
  'sharp',
  'undici',
  'pino-pretty',
  'vite',
  '@vitejs/plugin-react',
  '@fastify/otel',
])

/** Scopes whose every package stays in node_modules, for the reasons above. */
const externalScopes: readonly string[] = Object.freeze(['@opentelemetry'])

/** The package a bare import names: `@scope/name` or `name`. */
function packageOf(id: string): string {
  const parts = id.split('/')
  return id.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

function isExternal(id: string): boolean {
  if (isBuiltin(id)) return true
  if (id.startsWith('.') || path.isAbsolute(id) || id.startsWith('\0')) return false
  const name = packageOf(id)
  return externalPackages.includes(name) || externalScopes.includes(name.split('/')[0]!)
}

/**
 * `src/pages/page-sources.ts` as the compiled server holds it: the page modules and their server halves imported by
 * name, so a start lists no folder and transforms no `.tsx`. The site's pages always; the test build's only in a test
 * build, and a production build refuses them (COURIER_ERR_TEST_ROUTES_UNAVAILABLE) and holds no test code.
 */
function pageSourcesModule(options: ServerBuildOptions): string {
  const errorsModule = JSON.stringify(path.join(options.root, 'src', 'errors.ts'))
  const lines = [`import { errors } from ${errorsModule}`]
  const entries = (files: readonly PageFile[], from: number) =>
    files.map((file, index) => {
      const name = from + index
      lines.push(`import * as page${name} from ${JSON.stringify(path.join(options.root, file.file))}`)
      if (file.serverFile) {
        lines.push(`import * as server${name} from ${JSON.stringify(path.join(options.root, file.serverFile))}`)
      }
      return `{ ...${JSON.stringify(file)}, module: page${name}, server: ${file.serverFile ? `server${name}` : 'undefined'} }`
    })
  const site = entries(listPageFiles(options.root, pageFolders(false)), 0)
  const test = options.testPages ? entries(listPageFiles(options.root, [testPageFolder]), site.length) : undefined
  lines.push(`const sitePages = [${site.join(', ')}]`)
  lines.push(
    test
      ? `const testPages = [${test.join(', ')}]\nexport async function loadPageSources(withTests) {\n  return withTests ? [...sitePages, ...testPages] : sitePages\n}`
      : `export async function loadPageSources(withTests) {\n  if (withTests) throw new errors.TestRoutesUnavailable()\n  return sitePages\n}`,
  )
  return `${lines.join('\n')}\n`
}

/**
 * `src/site-routes.ts` as the compiled server holds it: the site's route plugins (and the test build's, in a test
 * build) imported by name.
 */
function siteRoutesModule(options: ServerBuildOptions): string {
  const lines: string[] = []
  const entries = (files: readonly string[], from: number) =>
    files.map((file, index) => {
      lines.push(`import route${from + index} from ${JSON.stringify(path.join(options.root, file))}`)
      return `{ file: ${JSON.stringify(file)}, plugin: route${from + index} }`
    })
  const site = entries(listSiteRouteFiles(options.root, siteRouteFolders(false)), 0)
  const test = options.testPages ? entries(listSiteRouteFiles(options.root, [testRouteFolder]), site.length) : []
  lines.push(`const siteRoutes = [${site.join(', ')}]`, `const testRoutes = [${test.join(', ')}]`)
  lines.push(
    'export async function loadSiteRoutes(withTests) {\n  return withTests ? [...siteRoutes, ...testRoutes] : siteRoutes\n}',
  )
  return `${lines.join('\n')}\n`
}

/** Replaces the modules whose content the build decides (src/build/build-stamp.ts, src/pages/page-sources.ts,
 * src/site-routes.ts, src/content/worker-files.ts). */
function buildDecisions(options: ServerBuildOptions, stamp: ServerBuildStamp): RolldownPlugin {
  const stampModule = path.join(options.root, 'src', 'build', 'build-stamp.ts')
  const pageSources = path.join(options.root, 'src', 'pages', 'page-sources.ts')
  const siteRoutes = path.join(options.root, 'src', 'site-routes.ts')
  const content = path.join(options.root, 'src', 'content')
  const workerFiles = path.join(content, 'worker-files.ts')
  const workers = { markdownWorkerFile: 'markdown-worker', indexReadWorkerFile: 'index-read-worker' }
  return {
    name: 'courier:server-build-decisions',
    load(id) {
      if (id === stampModule) return `export const serverBuildStamp = Object.freeze(${JSON.stringify(stamp)})\n`
      if (id === workerFiles) {
        // Each thread is an entry of its own (`markdown-worker.js`, ...); its URL is the bundler's file reference
        // (Rollup's `import.meta.ROLLUP_FILE_URL_<id>`), relative to the chunk that names it: no build path is kept.
        return Object.entries(workers)
          .map(([name, file]) => {
            const reference = this.emitFile({ type: 'chunk', id: path.join(content, `${file}.ts`), name: file })
            return `export const ${name} = new URL(import.meta.ROLLUP_FILE_URL_${reference})\n`
          })
          .join('')
      }
      if (id === siteRoutes) return siteRoutesModule(options)
      return id === pageSources ? pageSourcesModule(options) : undefined
    },
  }
}

/**
 * Compiles the server (src/server.ts and everything of Courier's it imports: src/, plugins/, config/, site/) to plain
 * ES modules in `<outDir>/node/` with source maps, after Vite has built the client and the SSR entry, so `npm start`
 * runs Node on JavaScript with no loader. Rolldown, Vite 8's own bundler, comes with Vite: the same resolver and
 * transforms as the client build, a bundle with the dependencies in it (see externalPackages), in well under a second.
 */
export function serverBuild(options: ServerBuildOptions): Plugin {
  const nodeDir = path.join(options.outDir, 'node')
  return {
    name: 'courier:server-build',
    apply: 'build',
    buildApp: {
      order: 'post',
      async handler(builder) {
        const manifestFile = path.join(options.outDir, deploymentManifestName)
        const { deploymentId } = JSON.parse(await readFile(manifestFile, 'utf8')) as DeploymentManifest
        const stamp: ServerBuildStamp = { deploymentId, sourceHash: options.sourceHash }
        await rm(nodeDir, { recursive: true, force: true })
        await build({
          cwd: options.root,
          input: { server: path.join(options.root, 'src', 'server.ts') },
          platform: 'node',
          external: isExternal,
          plugins: [buildDecisions(options, stamp)],
          transform: { target: 'node26', jsx: 'react-jsx' },
          output: {
            dir: nodeDir,
            format: 'esm',
            // Minified: a start reads, decodes and compiles every byte of the chunks it loads, and Node measures each
            // line of them for the source maps (docs/runtime.md "Cold start"). Function and class names are kept
            // (stack traces, profiles, Fastify's and avvio's plugin names); the maps give back files and lines.
            minify: {
              compress: { keepNames: { function: true, class: true } },
              mangle: { keepNames: true },
              codegen: { removeWhitespace: true },
            },
            // Strings, templates and names in ASCII (docs/performance.md "ASCII chunks"): one character beyond Latin-1
            // anywhere in a chunk makes V8 hold all of its source as two bytes per character. License comments are
            // kept as their authors wrote them (one name with an accent, Latin-1).
            charset: 'ascii',
            sourcemap: true,
            // Stack traces need the mappings only; the sources are in the repository. Keeps the map Node loads at
            // start-up (src/runtime/start-up.ts turns source maps on) and holds in memory a third of the size.
            sourcemapExcludeSources: true,
            entryFileNames: '[name].js',
            chunkFileNames: 'chunks/[name]-[hash].js',
          },
          logLevel: 'warn',
        })
        // Written last: a build that failed half-way has no manifest, so `npm start` builds again.
        const manifest: ServerManifest = { ...stamp, entry: 'server.js' }
        await writeFile(path.join(nodeDir, serverManifestName), JSON.stringify(manifest) + '\n')
        builder.config.logger.info(`courier: server compiled to ${path.relative(options.root, nodeDir)}/`)
      },
    },
  }
}
