/**
 * `npm start` builds first when it must: no build yet, or a source of the client newer than the build. Keeps the
 * quick start at two commands without rebuilding on every start.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../../config/env.ts'
import { deploymentManifestName } from './deployment-id.ts'

const config = loadConfig()
const buildMarker = path.join(config.distDir, deploymentManifestName)
const sources = ['client', 'site', 'config', 'src/build', 'vite.config.ts', 'package-lock.json'].map((entry) =>
  path.join(config.rootDir, entry),
)

function newestChange(entry: string): number {
  let stats
  try {
    stats = statSync(entry)
  } catch {
    return 0
  }
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestChange(path.join(entry, child)))
  return newest
}

function builtAt(): number {
  try {
    return statSync(buildMarker).mtimeMs
  } catch {
    return 0
  }
}

const built = builtAt()
const changed = Math.max(...sources.map(newestChange))
if (built === 0 || changed > built) {
  process.stdout.write(built === 0 ? 'courier: no build yet, building\n' : 'courier: sources changed, rebuilding\n')
  const result = spawnSync('npx', ['vite', 'build', '--app'], { cwd: config.rootDir, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}
