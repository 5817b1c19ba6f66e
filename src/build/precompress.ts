import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Plugin } from 'vite'
import { compression } from '../../config/compression.ts'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * Compresses the client build's text assets once, at build time, at the best level of each format: `<file>.br` and
 * `<file>.gz` beside each file of `assetsDir` worth it (a compressible extension, `compression.precompressMinBytes` or more, and
 * smaller once compressed). @fastify/static serves them as they are (`preCompressed`, plugins/documents.ts): no asset
 * is compressed per request.
 */
export function precompress(): Plugin {
  return {
    name: 'courier:precompress',
    apply: 'build',
    applyToEnvironment: (environment) => environment.name === 'client',
    writeBundle: {
      order: 'post',
      async handler(outputOptions, bundle) {
        const outDir = outputOptions.dir
        if (!outDir) return
        const assetsDir = this.environment.config.build.assetsDir
        const files = Object.keys(bundle).filter(
          (fileName) =>
            fileName.startsWith(`${assetsDir}/`) &&
            compression.precompressedExtensions.includes(path.extname(fileName)),
        )
        await Promise.all(
          files.map(async (fileName) => {
            const file = path.join(outDir, fileName)
            const bytes = await readFile(file)
            if (bytes.length < compression.precompressMinBytes) return
            const [br, gz] = await Promise.all([
              brotli(bytes, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: compression.brotliQualityOnce,
                  [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
                },
              }),
              gzipAsync(bytes, { level: compression.gzipLevelOnce }),
            ])
            if (br.length < bytes.length) await writeFile(`${file}.br`, br)
            if (gz.length < bytes.length) await writeFile(`${file}.gz`, gz)
          }),
        )
      },
    },
  }
}
