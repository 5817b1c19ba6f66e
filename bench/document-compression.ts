/**
 * What compressing a kept document costs per response, strategy by strategy (docs/compression.md "What it costs"): the gzip member
 * assembled from parts compressed once around the request's nonce (what Courier sends), against compressing the
 * whole page per request with zlib (gzip 6, brotli 4) and brotli at its best. CPU time per response in this process,
 * median of rounds, and the bytes each sends, for each kept document of the site. Prints a Markdown table.
 *
 * Run by `npm run bench:compression` (NODE_ENV=production, on the production build).
 */
import { randomBytes } from 'node:crypto'
import { pino } from 'pino'
import { constants, gunzipSync } from 'node:zlib'
import { loadConfig } from '../config/env.ts'
import { compressBody } from '../src/compression/compress.ts'
import { buildApp } from '../src/app.ts'
import { documentNoncePlaceholder, splitAtNonce } from '../src/render/document-cache.ts'
import { documentBytes, KeptBytes } from '../src/delivery/kept-bytes.ts'
import { brotliCompressSync } from 'node:zlib'
import { cpuPerCall } from './stats.ts'

const rounds = 21
const perRound = 200

function cpuMicroseconds(work: () => Buffer): { us: number; bytes: number } {
  return cpuPerCall(work, rounds, perRound)
}

/**
 * The document as served. The measurements block the event loop for seconds, and the server's load shedding
 * (plugins/load-shedding.ts) rightly answers 503 until its next sample sees the loop free again: wait for that,
 * rather than measure an error body.
 */
async function served(app: Awaited<ReturnType<typeof buildApp>>, path: string, status: number): Promise<string> {
  // Two of the shedding's sample intervals (config/server.ts loadSampleIntervalMs), and some.
  for (let attempt = 0; attempt < 150; attempt++) {
    const response = await app.inject(path)
    if (response.statusCode === status) return response.body
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${path} did not answer ${status}`)
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' })
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) })
  await app.ready()
  const rows = [
    '| document | plain bytes | gzip parts + nonce (Courier) | gzip 6 per request | brotli 4 per request | brotli 11 per request |',
    '|---|---:|---:|---:|---:|---:|',
  ]
  for (const path of ['/', '/guides', '/guides/streaming-ssr', '/gallery', '/no-such-page']) {
    const sample = await served(app, path, path === '/no-such-page' ? 404 : 200)
    const nonce = /nonce="([^"]+)"/.exec(sample)?.[1] ?? ''
    // The kept form of the page: its bytes with the placeholder where each request's nonce goes.
    const kept = splitAtNonce(sample.split(`nonce="${nonce}"`).join(`nonce="${documentNoncePlaceholder}"`))
    if (!kept) throw new Error(`${path}: the page does not split at its nonce`)
    // The sender's assembly of a kept document's bytes, its compressed parts kept as a server keeps them.
    const keptBytes = new KeptBytes()
    const fresh = () => randomBytes(16).toString('base64')
    if (gunzipSync(keptBytes.gzip(kept, 'n')).toString() !== documentBytes(kept, 'n').toString())
      throw new Error('gzip parts differ')
    const cell = ({ us, bytes }: { us: number; bytes: number }) => `${us.toFixed(1)} µs, ${bytes} B`
    const parts = cpuMicroseconds(() => keptBytes.gzip(kept, fresh()))
    const gzip = cpuMicroseconds(() => compressBody(documentBytes(kept, fresh()), 'gzip', 'perRequest'))
    const brotli = cpuMicroseconds(() => compressBody(documentBytes(kept, fresh()), 'br', 'perRequest'))
    const best = cpuMicroseconds(() =>
      brotliCompressSync(documentBytes(kept, fresh()), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    )
    rows.push(
      `| \`${path}\` | ${Buffer.byteLength(sample)} | ${cell(parts)} | ${cell(gzip)} | ${cell(brotli)} | ${cell(best)} |`,
    )
  }
  await app.close()
  process.stdout.write(rows.join('\n') + '\n')
}

main().catch((error: unknown) => {
  process.stderr.write(`document-compression: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
