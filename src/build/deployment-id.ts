import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Plugin } from 'vite'

/** Where the build records its deployment id for the server (outside the served folders). */
export const deploymentManifestName = 'deployment.json'

export interface DeploymentManifest {
  deploymentId: string
}

export interface DeploymentIdOptions {
  /** Pinned id (DEPLOYMENT_ID at build time); otherwise a hash of the client build. */
  deploymentId?: string
  /** The build's root output folder (the parent of client/ and server/). */
  outDir: string
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function hashBundle(entries: Array<[string, string | Uint8Array]>): string {
  const hash = createHash('sha256')
  for (const [name, content] of entries.sort(([a], [b]) => (a < b ? -1 : 1))) {
    hash.update(name).update('\0').update(content).update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

/**
 * Stamps one deployment id on the client build: `?dpl=<id>` on every reference to an emitted file (HTML tags, CSS
 * `url()`s, chunk imports, the preload list), so a browser never mixes two deployments' files and never loads a
 * chunk twice under two URLs. Vite's renderBuiltUrl misses the bundler's own chunk imports, hence one rewrite here
 * that treats every quoted or url() reference to an emitted file name alike.
 */
export function deploymentId(options: DeploymentIdOptions): Plugin {
  let id = ''
  return {
    name: 'courier:deployment-id',
    enforce: 'post',
    sharedDuringBuild: true,
    applyToEnvironment: (environment) => environment.name === 'client',
    generateBundle: {
      order: 'post',
      handler(_outputOptions, bundle) {
        const outputs = Object.values(bundle).filter((output) => !output.fileName.startsWith('.vite/'))
        id =
          options.deploymentId ??
          hashBundle(outputs.map((output) => [output.fileName, output.type === 'chunk' ? output.code : output.source]))
        const names = outputs.map((output) => escapeRegExp(path.posix.basename(output.fileName)))
        // A reference: an emitted file's name, after an opening quote/paren or a path, right before the closing one.
        const reference = new RegExp(`(["'\`(][^"'\`()\\s]*?(?:^|/)?)(${names.join('|')})(?=["'\`)])`, 'g')
        const stamp = (text: string) => text.replace(reference, `$1$2?dpl=${id}`)
        for (const output of outputs) {
          if (output.type === 'chunk') output.code = stamp(output.code)
          else if (typeof output.source === 'string') output.source = stamp(output.source)
        }
      },
    },
    async writeBundle() {
      const manifest: DeploymentManifest = { deploymentId: id }
      await writeFile(path.join(options.outDir, deploymentManifestName), JSON.stringify(manifest) + '\n')
    },
  }
}
