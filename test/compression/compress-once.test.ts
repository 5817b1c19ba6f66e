/**
 * Kept bodies are compressed once per coding at the best ratio, off the event loop (src/compression/compress.ts
 * compressOnceOffLoop, src/delivery/send.ts): the bytes are those the best level makes on the loop, each coding
 * decodes to the body, and the loop keeps turning while a large body is compressed.
 */
import t from 'tap'
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from 'node:zlib'
import { compressBody, compressOnceOffLoop } from '../../src/compression/compress.ts'

const body = JSON.stringify({
  pageProps: { sections: Array.from({ length: 400 }, (_, index) => `section ${index}: ${'words '.repeat(40)}`) },
})

t.test('the same bytes as the best level on the loop, decoding to the body', async (t) => {
  const decode = { br: brotliDecompressSync, gzip: gunzipSync, zstd: zstdDecompressSync } as const
  for (const coding of ['br', 'gzip', 'zstd'] as const) {
    const offLoop = await compressOnceOffLoop(body, coding)
    t.ok(offLoop.equals(compressBody(body, coding, 'once')), `${coding}: the same bytes`)
    t.equal(decode[coding](offLoop).toString('utf8'), body, `${coding}: decodes to the body`)
  }
})

t.test('the event loop turns while a large body is compressed at brotli 11', async (t) => {
  let turns = 0
  const ticker = setInterval(() => turns++, 1)
  const started = performance.now()
  await compressOnceOffLoop(body.repeat(4), 'br')
  const tookMs = performance.now() - started
  clearInterval(ticker)
  t.comment(`${Math.round(tookMs)} ms of compression, ${turns} timer turns meanwhile`)
  t.ok(turns > 0, 'timers ran during the compression')
})
