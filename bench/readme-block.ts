/**
 * The README's benchmark results are a marked block the bench rewrites from bench/results/latest.json, so the README
 * cannot drift from the last run. Everything outside the markers is left byte for byte.
 */
export const blockStart = '<!-- bench:results:start (written by npm run bench from bench/results/latest.json; do not edit) -->'
export const blockEnd = '<!-- bench:results:end -->'

export class ReadmeBlockError extends Error {
  override name = 'ReadmeBlockError'
}

/** The start and end markers of one block. */
export interface BlockMarkers {
  start: string
  end: string
}

/** The README with the block between the markers replaced by `content` (markers kept; same input, same output). */
export function rewriteBlock(readme: string, content: string, markers: BlockMarkers = { start: blockStart, end: blockEnd }): string {
  const { start: blockStart, end: blockEnd } = markers
  const start = readme.indexOf(blockStart)
  const end = readme.indexOf(blockEnd)
  if (start === -1 || end === -1 || end < start) {
    throw new ReadmeBlockError(`README.md has no results block (${blockStart} … ${blockEnd})`)
  }
  if (readme.indexOf(blockStart, start + 1) !== -1) throw new ReadmeBlockError('README.md has two results blocks')
  return `${readme.slice(0, start)}${blockStart}\n${content.trim()}\n${readme.slice(end)}`
}
