/**
 * The bench's runtime comparison (BENCH_BASELINE_NODE, bench/README.md): Courier's compiled server, the very build
 * `npm start` runs, started on an older Node. dist/node/server.js cannot be the entry there: it refuses a Node older
 * than the one Courier pins, and turns on V8's compile cache, which older Nodes lack. This file stands in for it and
 * loads the same chunks in the same order. Only what the bench's targets ask reaches the server (no zstd, which older
 * Nodes lack too), so every target compares the same code. Plain JavaScript: it runs on Nodes that strip no types.
 */
import { readFileSync } from 'node:fs'
import module from 'node:module'

const entry = new URL(`../${process.env.DIST_DIR ?? 'dist'}/node/server.js`, import.meta.url)
// The server flushes the compile cache once it listens; without one there is nothing to flush.
module.flushCompileCache ??= () => {}
const chunks = [...readFileSync(entry, 'utf8').matchAll(/import\(["'`](\.\/chunks\/[^"'`]+\.js)["'`]\)/g)].map(
  (match) => match[1],
)
if (chunks.length === 0) throw new Error(`${entry.pathname} loads no chunk: is it a build of this version?`)
for (const chunk of chunks) await import(new URL(chunk, entry).href)
