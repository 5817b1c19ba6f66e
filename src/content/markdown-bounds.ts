import { errors } from '../errors.ts'

/** Leading block markers of a line: blockquote `>`, list bullets and ordered-list numbers, with their spaces. */
const containerMarkers = /^(?:[ \t]*(?:>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))+/
const fenceOpening = /^(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*(`{3,}|~{3,})/

/** Columns of leading white space, a tab to the next multiple of 4 as CommonMark counts it. */
function indentColumns(line: string): number {
  let columns = 0
  for (const character of line) {
    if (character === ' ') columns++
    else if (character === '\t') columns += 4 - (columns % 4)
    else break
  }
  return columns
}

/**
 * How deeply a line's blocks nest: each `>` and list marker it opens with, plus its indentation in steps of two
 * columns (a nested list item written on a line of its own says its depth by indentation alone). An upper estimate:
 * it only has to keep prose well inside the bound and stop a runaway file before the parser meets it.
 */
function lineDepth(line: string): number {
  const markers = containerMarkers.exec(line)?.[0] ?? ''
  let count = 0
  for (const character of markers) if (character === '>') count++
  count += (markers.match(/[-*+]|\d{1,9}[.)]/g) ?? []).length
  return count + Math.floor(indentColumns(line) / 2)
}

/**
 * Refuses a Markdown body whose blocks nest deeper than `maxDepth` (COURIER_ERR_CONTENT_INVALID), in one pass over the
 * text and before any parsing: micromark's time grows with the square of the nesting (docs/content.md "What a content
 * file may be"), so a small file of deeply nested quotes would otherwise hold the parser for seconds. Lines inside a
 * fenced code block are code, not blocks, and are not counted.
 */
export function checkNesting(markdown: string, file: string, maxDepth: number): void {
  let fence: string | undefined
  let lineNumber = 0
  for (const line of markdown.split('\n')) {
    lineNumber++
    const opening = fenceOpening.exec(line)?.[1]
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length) fence = undefined
      continue
    }
    if (opening !== undefined) {
      fence = opening
      continue
    }
    const depth = lineDepth(line)
    if (depth > maxDepth) {
      throw new errors.ContentInvalid(
        file,
        `body line ${lineNumber} nests ${depth} blocks deep (quotes, lists, indentation); at most ${maxDepth}`,
      )
    }
  }
}
