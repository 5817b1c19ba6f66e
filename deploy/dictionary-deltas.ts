/**
 * Deltas for one server without the rolling deploy (docs/compression.md "Dictionaries"): writes, beside the chunks of
 * a build, their `dcb` and `dcz` deltas against the chunks of the builds served before it, which returning visitors'
 * browsers hold as dictionaries. Run after `npm run build`, before the server starts (it finds the deltas at start-up).
 *
 *   node deploy/dictionary-deltas.ts [--dist dist] --previous <older build's client/chunks> [--previous ...]
 *   npm run deltas -- --previous ../previous-release/dist/client/chunks
 *
 * Keep the previous builds' `client/chunks` (the files, not their server) for as long as visitors may return with
 * them: a week of deploys, say. Only JavaScript and CSS of a changed name get a delta, and only where it is smaller
 * than the chunk's `.br`, `.zst` and `.gz`.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { dictionaryFilesIn, writeDeltas } from '../src/build/index.ts'

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    previous: { type: 'string', multiple: true, default: [] },
  },
})
if (values.previous.length === 0) {
  process.stderr.write('dictionary-deltas: name at least one older build with --previous <dist>/client/chunks\n')
  process.exit(2)
}
const dictionaryFiles = (
  await Promise.all(values.previous.map((folder) => dictionaryFilesIn(path.resolve(folder))))
).flat()
if (dictionaryFiles.length === 0) {
  process.stderr.write(`dictionary-deltas: no JavaScript or CSS chunk in ${values.previous.join(', ')}\n`)
  process.exit(2)
}
const report = await writeDeltas(path.resolve(values.dist, 'client', 'chunks'), dictionaryFiles)
for (const delta of report.written) {
  process.stdout.write(
    `${delta.chunk} against ${path.basename(delta.dictionary)}: ${delta.coding} ${delta.bytes} B ` +
      `(best ordinary coding ${delta.ordinaryBytes} B)\n`,
  )
}
process.stdout.write(
  `dictionary-deltas: ${report.written.length} written, ` +
    `${report.notSmaller} no smaller than the chunk's coding, ${report.tooLarge} too large\n`,
)
