import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip, zstdCompress } from 'node:zlib'
import type { Plugin } from 'vite'
import { compression } from '../../config/compression.ts'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)
const zstd = promisify(zstdCompress)

/**
 * Compresses the client build's text assets once, at build time, at the best level of each format: `<file>.br`,
 * `<file>.gz` and `<file>.zst` beside each file of `assetsDir` worth it (a compressible extension,
 * `compression.precompressMinBytes` or more, and smaller once compressed). @fastify/static serves `.br` and `.gz` as
 * they are (`preCompressed`), the sender the `.zst` (src/delivery/built-assets.ts): no asset is compressed per request.
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
            const [br, gz, zst] = await Promise.all([
              brotli(bytes, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: compression.brotliQualityOnce,
                  [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
                },
              }),
              gzipAsync(bytes, { level: compression.gzipLevelOnce }),
              zstd(bytes, {
                params: { [constants.ZSTD_c_compressionLevel]: compression.zstdLevelOnce },
                pledgedSrcSize: bytes.length,
              }),
            ])
            if (br.length < bytes.length) await writeFile(`${file}.br`, br)
            if (gz.length < bytes.length) await writeFile(`${file}.gz`, gz)
            if (zst.length < bytes.length) await writeFile(`${file}.zst`, zst)
          }),
        )
      },
    },
  }
}
