// Plain JavaScript on purpose: `npm start` runs src/build/ensure-build.mjs, which imports this, before any build
// exists and without a TypeScript loader (a fresh clone, or an install without devDependencies).
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * What a production build is made from, relative to the project root: the client, the server, what they share, the
 * build's configuration and the installed dependencies' versions. A change to any byte of these makes another build.
 */
export const buildSources = Object.freeze([
  'client',
  'config',
  'plugins',
  'site',
  'src',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'vite.config.ts',
])

/**
 * Top-level folders of a project that no build reads: installed packages, builds, tests, docs, benches, the deploy
 * tool, the content (read at run time) and the site's data (`data/`, DATA_DIR's default). Any other folder is a source: a folder of the site's own code that a page
 * imports (`lib/`, say) is hashed and released with the rest, without a list to keep up to date.
 */
export const notBuildSources = Object.freeze([
  'node_modules',
  'dist',
  'dist-test',
  'test',
  'docs',
  'bench',
  'deploy',
  'content',
  'data',
  'coverage',
  'results',
])

/**
 * The build sources of the project at `root`: `buildSources`, and every other top-level folder but hidden ones and
 * `notBuildSources`, in name order.
 *
 * @param {string} root
 * @returns {string[]}
 */
export function listBuildSources(root) {
  const others = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .filter((name) => !buildSources.includes(name) && !notBuildSources.includes(name))
    .sort()
  return [...buildSources, ...others]
}

/** Where the compiled server records what it was built from (beside its code, in `<build>/node/`). */
export const serverManifestName = 'build.json'

/** @param {string} root @param {string} entry @param {Array<[string, string]>} files */
function collect(root, entry, files) {
  const absolute = path.join(root, entry)
  let stats
  try {
    stats = statSync(absolute)
  } catch (error) {
    // A source that is not there (an optional file) hashes as absent, which a later build sees as a change.
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return
    throw error
  }
  if (stats.isFile()) {
    files.push([entry.split(path.sep).join('/'), absolute])
    return
  }
  if (!stats.isDirectory()) return
  for (const child of readdirSync(absolute)) collect(root, path.join(entry, child), files)
}

/**
 * The first 16 hex digits of a SHA-256 over every file of `entries` (under `root`; by default its build sources,
 * `listBuildSources`): its path and bytes, in path order. The same checked-out sources give the same hash on any machine; modification times play no part (a fresh
 * clone or a copied build has meaningless ones).
 *
 * @param {string} root
 * @param {readonly string[]} [entries]
 * @returns {string}
 */
export function hashSources(root, entries = listBuildSources(root)) {
  /** @type {Array<[string, string]>} */
  const files = []
  for (const entry of entries) collect(root, entry, files)
  files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const hash = createHash('sha256')
  for (const [name, absolute] of files) hash.update(name).update('\0').update(readFileSync(absolute)).update('\0')
  return hash.digest('hex').slice(0, 16)
}
