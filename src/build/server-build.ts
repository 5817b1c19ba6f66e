import { readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import path from 'node:path'
import { build, type Plugin as RolldownPlugin } from 'rolldown'
import type { Plugin } from 'vite'
import type { ServerBuildStamp } from './build-stamp.ts'
import { deploymentManifestName, type DeploymentManifest } from './deployment-id.ts'
import { serverManifestName } from './source-hash.mjs'

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

/** Node's own modules and packages stay imports (node_modules is there at run time); only Courier's code is bundled. */
function isExternal(id: string): boolean {
  return isBuiltin(id) || !(id.startsWith('.') || path.isAbsolute(id) || id.startsWith('\0'))
}

/** Replaces the modules whose content the build decides (src/build/build-stamp.ts, src/pages/test-site.ts). */
function buildDecisions(options: ServerBuildOptions, stamp: ServerBuildStamp): RolldownPlugin {
  const stampModule = path.join(options.root, 'src', 'build', 'build-stamp.ts')
  const testSiteModule = path.join(options.root, 'src', 'pages', 'test-site.ts')
  const testSite = JSON.stringify(path.join(options.root, 'test', 'site', 'site.ts'))
  const errorsModule = JSON.stringify(path.join(options.root, 'src', 'errors.ts'))
  return {
    name: 'courier:server-build-decisions',
    load(id) {
      if (id === stampModule) return `export const serverBuildStamp = Object.freeze(${JSON.stringify(stamp)})\n`
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

/**
 * Compiles the server (src/server.ts and everything of Courier's it imports: src/, plugins/, config/, site/) to plain
 * ES modules in `<outDir>/node/` with source maps, after Vite has built the client and the SSR entry, so `npm start`
 * runs Node on JavaScript with no loader. Rolldown, Vite 8's own bundler, is already installed with Vite: the server is
 * bundled into one module (packages stay imports), which Node loads in one go instead of resolving some 70 files.
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
          transform: { target: 'node20', jsx: 'react-jsx' },
          // The code is read by people in stack traces and profiles: names kept, nothing minified.
          output: {
            dir: nodeDir,
            format: 'esm',
            sourcemap: true,
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
