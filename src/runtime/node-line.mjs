// Which Node.js Courier runs on, checked before anything else is loaded. Plain JavaScript in syntax every Node since
// 18 parses, importing only Node's own modules: it has to run on the Node it refuses, and say so in one line where a
// dependency would otherwise stop with a stack trace of its own (docs/errors.md "Error codes", docs/runtime.md).
import { existsSync } from 'node:fs'
import path from 'node:path'

/**
 * The oldest Node.js Courier runs on: the 26 line, Active LTS since 2026-10-28 and supported to 2029-04-30, at the
 * release every suite passed on. package.json's `engines.node`, `.node-version` and the devDependency `node` (the
 * Node that `npm ci` installs as node_modules/.bin/node and every npm script runs on) name the same release
 * (test/runtime/node-line.test.ts checks them against each other).
 */
export const minimumNode = Object.freeze({ major: 26, minor: 10, patch: 0 })

/**
 * The exit code of a process started on an older Node: 69, EX_UNAVAILABLE of sysexits.h ("a support program ... does
 * not exist"), apart from 78 (a bad environment) and 1 (start-up failed) so that a supervisor can tell them apart.
 */
export const unsupportedNodeExitCode = 69

/**
 * `v26.10.0` -> [26, 10, 0]; anything else (a pre-release suffix is dropped) -> undefined.
 *
 * @param {string} version
 * @returns {[number, number, number] | undefined}
 */
function parseVersion(version) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version)
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined
}

/** @returns {string} */
export function minimumNodeVersion() {
  return `${minimumNode.major}.${minimumNode.minor}.${minimumNode.patch}`
}

/**
 * Whether `version` (as `process.version` spells it) is the minimum or newer.
 *
 * @param {string} version
 * @returns {boolean}
 */
export function isSupportedNode(version) {
  const parts = parseVersion(version)
  if (!parts) return false
  const minimum = [minimumNode.major, minimumNode.minor, minimumNode.patch]
  for (let index = 0; index < 3; index += 1) {
    if (parts[index] !== minimum[index])
      return /** @type {number} */ (parts[index]) > /** @type {number} */ (minimum[index])
  }
  return true
}

/**
 * The one line a process started on an older Node writes before it exits, with what to do about it:
 * under npm (`npm_lifecycle_event` set) with no node_modules/.bin/node, the pinned Node was never installed;
 * otherwise the command started the wrong `node`.
 *
 * @param {{ version: string, projectRoot: string, underNpm: boolean }} runtime
 * @returns {string | undefined} undefined when the version is supported
 */
export function unsupportedNodeLine({ version, projectRoot, underNpm }) {
  if (isSupportedNode(version)) return undefined
  const needed = `courier: Node.js ${version} is older than ${minimumNodeVersion()}, the oldest Courier runs on`
  if (underNpm && !existsSync(path.join(projectRoot, 'node_modules', '.bin', 'node'))) {
    return `${needed}; node_modules/.bin/node is missing: \`npm ci\` installs Node ${minimumNode.major} there (the devDependency "node") and npm scripts run on it`
  }
  return `${needed}: start it with Node ${minimumNode.major} (.node-version names the release), or through npm, which runs node_modules/.bin/node`
}

/**
 * Exits at once with {@link unsupportedNodeExitCode} and one line on stderr when this process's Node is older than
 * {@link minimumNode}; does nothing otherwise.
 *
 * @param {string} [projectRoot] where node_modules is: the working directory, as under npm
 */
export function refuseUnsupportedNode(projectRoot = process.cwd()) {
  const line = unsupportedNodeLine({
    version: process.version,
    projectRoot,
    underNpm: Boolean(process.env.npm_lifecycle_event),
  })
  if (line === undefined) return
  process.stderr.write(line + '\n')
  process.exit(unsupportedNodeExitCode)
}
