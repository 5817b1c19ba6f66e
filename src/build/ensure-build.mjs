// `npm start` runs this first (package.json `prestart`). Plain JavaScript on purpose: it must run on a fresh clone,
// before any build exists, with nothing but Node (no TypeScript loader).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { refuseUnsupportedNode } from '../runtime/node-line.mjs'
import { hashSources, serverManifestName } from './source-hash.mjs'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Whether the production build at `distDir` can serve the sources checked out under `root`:
 * - `missing`: no complete build (no compiled server, no client build, or a build that stopped half-way);
 * - `stale`: built from other sources (a file of its build sources, `listBuildSources`, differs by a byte), or its compiled server and
 *   client build come from two different runs;
 * - `fresh`: neither.
 *
 * @param {string} root
 * @param {string} distDir
 * @returns {{ state: 'missing' | 'stale' | 'fresh', reason: string }}
 */
export function buildState(root, distDir) {
  /** @param {string} file */
  const readJson = (file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined
      throw error
    }
  }
  const server = readJson(path.join(distDir, 'node', serverManifestName))
  const client = readJson(path.join(distDir, 'deployment.json'))
  if (!server || !client) return { state: 'missing', reason: `no complete build in ${distDir}` }
  if (server.deploymentId !== client.deploymentId) {
    return { state: 'stale', reason: 'the compiled server and the client build come from different builds' }
  }
  const sourceHash = hashSources(root)
  if (server.sourceHash !== sourceHash) {
    return { state: 'stale', reason: `built from sources ${server.sourceHash}, checked out: ${sourceHash}` }
  }
  return { state: 'fresh', reason: 'built from the sources checked out' }
}

/** The build `npm start` serves: DIST_DIR as the server reads it (config/env.ts), `dist` by default. */
function productionDistDir() {
  return path.resolve(projectRoot, process.env.DIST_DIR || 'dist')
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Before a build is started: on an older Node it would fail inside Vite instead of saying why.
  refuseUnsupportedNode(projectRoot)
  const { state, reason } = buildState(projectRoot, productionDistDir())
  if (state !== 'fresh') {
    process.stdout.write(
      `courier: ${state === 'missing' ? 'no build yet' : 'build out of date'} (${reason}), building\n`,
    )
    // `npm run build`: Vite and the compilers are devDependencies, which `npm install` installs.
    const result = spawnSync('npm', ['run', 'build'], { cwd: projectRoot, stdio: 'inherit' })
    if (result.error) throw result.error
    if (result.status !== 0) process.exit(result.status ?? 1)
  }
}
