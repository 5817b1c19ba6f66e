import { readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import path from 'node:path'
import { build, type Plugin as RolldownPlugin } from 'rolldown'
import type { Plugin } from 'vite'
import type { ServerBuildStamp } from './build-stamp.ts'
import { deploymentManifestName, type DeploymentManifest } from './deployment-id.ts'
import { serverManifestName } from './source-hash.mjs'
import { startUp } from '../../config/start-up.ts'

export interface ServerBuildOptions {
  /** The project root: holds src/server.ts. */
  root: string
  /** The build's root output folder: the server goes to `<outDir>/node/`, beside client/ and server/. */
  outDir: string
  /** The hash of the sources this build is made from (src/build/source-hash.mjs). */
  sourceHash: string
  /** The test build: its server bundles the test pages of test/site/ (served with COURIER_TEST_ROUTES). */
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

/** Replaces the modules whose content the build decides (src/build/build-stamp.ts, src/pages/test-site.ts,
 * src/content/markdown-worker-file.ts). */
function buildDecisions(options: ServerBuildOptions, stamp: ServerBuildStamp): RolldownPlugin {
  const stampModule = path.join(options.root, 'src', 'build', 'build-stamp.ts')
  const testSiteModule = path.join(options.root, 'src', 'pages', 'test-site.ts')
  const testSite = JSON.stringify(path.join(options.root, 'test', 'site', 'site.ts'))
  const errorsModule = JSON.stringify(path.join(options.root, 'src', 'errors.ts'))
  const markdownWorkerFileModule = path.join(options.root, 'src', 'content', 'markdown-worker-file.ts')
  const markdownWorker = path.join(options.root, 'src', 'content', 'markdown-worker.ts')
  return {
    name: 'courier:server-build-decisions',
    load(id) {
      if (id === stampModule) return `export const serverBuildStamp = Object.freeze(${JSON.stringify(stamp)})\n`
      if (id === markdownWorkerFileModule) {
        // The parser's thread is an entry of its own, `markdown-worker.js`; its URL is the bundler's file reference
        // (Rollup's `import.meta.ROLLUP_FILE_URL_<id>`), relative to the chunk that names it: no build path is kept.
        const reference = this.emitFile({ type: 'chunk', id: markdownWorker, name: 'markdown-worker' })
        return `export const markdownWorkerFile = new URL(import.meta.ROLLUP_FILE_URL_${reference})\n`
      }
      if (id !== testSiteModule) return undefined
      if (options.testPages) {
        return `export async function loadTestSitePages() {\n  return (await import(${testSite})).testSitePages\n}\n`
      }
      return (
        `import { errors } from ${errorsModule}\n` +
        `export async function loadTestSitePages() {\n  throw new errors.TestRoutesUnavailable()\n}\n`
      )
    },
  }
}

/** `import http, { STATUS_CODES as codes } from "node:http";` as Rolldown writes an import of one of Node's modules. */
const builtinImport = /^import (?:(\* as [\w$]+)|([\w$]+)?(?:, )?(?:\{ ([^}]*) \})?) from "([^"]+)";$/gm

/**
 * Loads Node's own modules through `require` in the compiled server, where Rolldown writes `import`: an ES import of a
 * built-in module builds its namespace from every export, reading each one, and some exports are getters that load
 * more of Node on first read. `node:http`'s `WebSocket`, `CloseEvent` and `MessageEvent` load Node's copy of undici
 * (and with it `http2`), `node:crypto`'s `webcrypto` Web Crypto: about a tenth of Courier's start-up CPU before this,
 * for APIs it never calls. `require` returns the module object and reads only what the code names.
 * One import line becomes one line, so the source map (mappings only) stays right.
 */
function builtinsThroughRequire(): RolldownPlugin {
  return {
    name: 'courier:builtins-through-require',
    renderChunk(code) {
      let rewritten = false
      const lazy = lazyBuiltins(code)
      if (lazy !== code) rewritten = true
      const next = lazy.replace(builtinImport, (line, namespace: string | undefined, name: string | undefined, names: string | undefined, id: string) => {
        if (!isBuiltin(id)) return line
        rewritten = true
        const load = `__courierRequire(${JSON.stringify(id)})`
        const parts: string[] = []
        const binding = namespace?.slice('* as '.length) ?? name
        if (binding && !names && startUp.lazyBuiltins.includes(id)) return `const ${binding} = __courierLazyBuiltin(${JSON.stringify(id)});`
        if (binding) parts.push(`const ${binding} = ${load};`)
        if (names) {
          const fields = names.split(',').map((one) => one.trim().replace(/^([\w$]+) as ([\w$]+)$/, '$1: $2'))
          parts.push(`const { ${fields.join(', ')} } = ${binding ?? load};`)
        }
        return parts.join(' ') || `${load};`
      })
      if (!rewritten) return null
      // On the first line, before everything: no line moves.
      const prelude =
        'import { createRequire as __courierCreateRequire } from "node:module"; const __courierRequire = __courierCreateRequire(import.meta.url); ' +
        lazyBuiltinPrelude
      return { code: prelude + next, map: null }
    },
  }
}

/** A bundled package's `__require("node:https")` (Rolldown's require of a built-in from CommonJS). */
const bundledRequire = /\b__require\("(node:[\w/]+)"\)/g

/**
 * `__courierLazyBuiltin(id)`: a stand-in for a built-in module that requires it on the first read, write or `in` of
 * one of its properties and forwards every one to it from then on.
 */
export const lazyBuiltinPrelude =
  'const __courierLazyBuiltin = (id) => { let loaded; const real = () => (loaded ??= __courierRequire(id)); ' +
  'return new Proxy({}, { get: (_, key) => real()[key], set: (_, key, value) => { real()[key] = value; return true }, ' +
  'has: (_, key) => key in real(), ownKeys: () => Reflect.ownKeys(real()), ' +
  'getOwnPropertyDescriptor: (_, key) => { const found = Reflect.getOwnPropertyDescriptor(real(), key); return found && { ...found, configurable: true } } }) }; '

/**
 * The bundled packages' requires of config/start-up.ts `lazyBuiltins` become stand-ins that load the module on first
 * use (the config says which and why). Same line, same length or longer: the source map stays right.
 */
export function lazyBuiltins(code: string): string {
  return code.replace(bundledRequire, (call, id: string) => (startUp.lazyBuiltins.includes(id) ? `__courierLazyBuiltin(${JSON.stringify(id)})` : call))
}

// A legal comment (slash, star, bang ... star, slash) on lines of its own, as the minifier leaves one.
const legalCommentLines = /^\/\*![^]*?\*\/$/gm

/**
 * `charset: 'ascii'` escapes every string, template and identifier, but leaves comments as they are: a license notice
 * naming its author with an accent would keep the chunk's source from being ASCII. Its other characters are written
 * as `\u{...}`. Only on comments that are lines of their own, so no column of the source map moves.
 */
function asciiLegalComments(): RolldownPlugin {
  return {
    name: 'courier:ascii-legal-comments',
    // After minifying, which puts each legal comment on lines of its own.
    generateBundle(_options, bundle) {
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk' || !/[^\0-\x7f]/.test(output.code)) continue
        output.code = output.code.replace(legalCommentLines, (comment) =>
          comment.replace(/[^\0-\x7f]/gu, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`),
        )
      }
    },
  }
}

/** What @fastify/static's `import { glob } from 'glob'` resolves to in the compiled server. */
const globStandInId = '\0courier:glob-on-demand'

/**
 * @fastify/static's `glob` package, loaded on its first walk instead of when @fastify/static loads, and a walk that
 * ignores every file (`globIgnore: ['**']`, src/delivery/built-assets.ts) answered at once, as glob answers it: no
 * file. A production start walks nothing else (plugins/public-files.ts lists its folder itself), so it neither loads
 * nor runs glob, about 10 ms of a start (docs/runtime.md "Cold start").
 */
function globOnDemand(): RolldownPlugin {
  const fastifyStatic = `${path.sep}@fastify${path.sep}static${path.sep}`
  return {
    name: 'courier:glob-on-demand',
    resolveId(source, importer) {
      return source === 'glob' && importer?.includes(fastifyStatic) ? globStandInId : undefined
    },
    load(id) {
      if (id !== globStandInId) return undefined
      return (
        'export async function glob(pattern, options) {\n' +
        "  if (options?.ignore?.length === 1 && options.ignore[0] === '**') return []\n" +
        "  return (await import('glob')).glob(pattern, options)\n" +
        '}\n'
      )
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
          plugins: [buildDecisions(options, stamp), globOnDemand(), builtinsThroughRequire(), asciiLegalComments()],
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
            // ASCII only (docs/runtime.md "Cold start"): one character beyond Latin-1 anywhere in a chunk makes V8 hold
            // all of its source as two bytes per character, and any beyond ASCII makes Node transcode it on every start.
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
