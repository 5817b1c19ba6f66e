import module from 'node:module'
import path from 'node:path'
import v8 from 'node:v8'
import { fileURLToPath } from 'node:url'
import { startUp } from '../../config/start-up.ts'

/** What the entry did about V8's compile cache: `directory` once it is on, `message` when Node said why not. */
export interface CompileCacheState {
  status: 'enabled' | 'already-enabled' | 'failed' | 'disabled' | 'sources'
  directory?: string | undefined
  message?: string | undefined
}

/**
 * Turns on V8's compile cache for what the process loads from now on, in `<folder of the compiled
 * server>/compile-cache` (config/start-up.ts): the first start compiles and writes it, every later one reads the
 * compiled code instead of compiling the bundle and React's server renderer again. `portable`: entries are keyed by
 * paths relative to the folder, so a build moved as a whole (a release folder, an image layer) keeps its cache. Not for
 * the server run from its TypeScript sources (`npm run dev`, `entryUrl` a `.ts` file): nothing is written into the
 * source tree. NODE_COMPILE_CACHE set by the operator wins (`already-enabled`); NODE_DISABLE_COMPILE_CACHE=1 turns it
 * off (`disabled`).
 */
export function enableCompileCache(entryUrl: string): CompileCacheState {
  const entry = fileURLToPath(entryUrl)
  if (!entry.endsWith('.js')) return { status: 'sources' }
  const directory = path.join(path.dirname(entry), startUp.compileCacheFolder)
  const result = module.enableCompileCache({ directory, portable: true })
  const { compileCacheStatus } = module.constants
  switch (result.status) {
    case compileCacheStatus.ENABLED:
      return { status: 'enabled', directory: result.directory }
    case compileCacheStatus.ALREADY_ENABLED:
      return { status: 'already-enabled', directory: result.directory }
    case compileCacheStatus.DISABLED:
      return { status: 'disabled' }
    default:
      return { status: 'failed', message: result.message }
  }
}

/** Source maps for Courier's own code, from now on (config/start-up.ts says why not `--enable-source-maps`). */
export function enableSourceMaps(): void {
  module.setSourceMapsSupport(true, startUp.sourceMaps)
}

/**
 * The V8 flags of a server at work (config/start-up.ts `flagsOnceLoaded`): once, after the modules are loaded, so
 * every built-in module loaded before uses the code cache Node ships with.
 */
export function setFlagsOnceLoaded(): void {
  for (const flag of startUp.flagsOnceLoaded) v8.setFlagsFromString(flag)
}
