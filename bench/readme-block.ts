/**
 * The benchmark results are marked blocks of docs/benchmarks.md that the benches rewrite from bench/results/, so the page
 * cannot drift from the last run. Everything outside the markers is left byte for byte.
 */
export const blockStart =
  '<!-- bench:results:start (written by npm run bench from bench/results/latest.json; do not edit) -->'
export const blockEnd = '<!-- bench:results:end -->'

export class ReadmeBlockError extends Error {
  override name = 'ReadmeBlockError'
}

/** The start and end markers of one block. */
export interface BlockMarkers {
  start: string
  end: string
}

/** `npm run bench:build`'s block (bench/compiled-vs-source.ts). */
export const buildBlockMarkers: BlockMarkers = {
  start:
    '<!-- bench:build:start (written by npm run bench:build from bench/results/build-compare.json; do not edit) -->',
  end: '<!-- bench:build:end -->',
}

/** `npm run lighthouse`'s block (bench/lighthouse.ts). */
export const lighthouseBlockMarkers: BlockMarkers = {
  start:
    '<!-- lighthouse:results:start (written by npm run lighthouse from bench/results/lighthouse.json; do not edit) -->',
  end: '<!-- lighthouse:results:end -->',
}

/** `npm run bench:revalidation`'s block (bench/revalidation.ts). */
export const revalidationBlockMarkers: BlockMarkers = {
  start:
    '<!-- bench:revalidation:start (written by npm run bench:revalidation from bench/results/revalidation.json; do not edit) -->',
  end: '<!-- bench:revalidation:end -->',
}

/** The document with the block between the markers replaced by `content` (markers kept; same input, same output). */
export function rewriteBlock(
  readme: string,
  content: string,
  markers: BlockMarkers = { start: blockStart, end: blockEnd },
): string {
  const { start: blockStart, end: blockEnd } = markers
  const start = readme.indexOf(blockStart)
  const end = readme.indexOf(blockEnd)
  if (start === -1 || end === -1 || end < start) {
    throw new ReadmeBlockError(`the document has no results block (${blockStart} … ${blockEnd})`)
  }
  if (readme.indexOf(blockStart, start + 1) !== -1) throw new ReadmeBlockError('the document has two results blocks')
  return `${readme.slice(0, start)}${blockStart}\n${content.trim()}\n${readme.slice(end)}`
}

/** `npm run bench:codings`'s block (bench/codings.ts). */
export const codingsBlockMarkers: BlockMarkers = {
  start: '<!-- bench:codings:start (written by npm run bench:codings; do not edit) -->',
  end: '<!-- bench:codings:end -->',
}
