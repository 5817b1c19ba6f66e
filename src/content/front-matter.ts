import { parse as parseYaml } from 'yaml'
import { errors } from '../errors.ts'

/**
 * The YAML block that opens a file between two `---` lines (as Jekyll, Hugo and micromark's front matter read it:
 * the first line, nothing before it), and the Markdown after it.
 */
const frontMatterBlock = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/

export function splitFrontMatter(text: string): { yaml: string | undefined; markdown: string } {
  const match = frontMatterBlock.exec(text)
  if (!match) return { yaml: undefined, markdown: text }
  return { yaml: match[1] ?? '', markdown: text.slice(match[0].length) }
}

export function readFrontMatter(yamlText: string | undefined, file: string): Record<string, unknown> {
  if (yamlText === undefined) throw new errors.ContentInvalid(file, 'no front matter (a --- fenced YAML block first)')
  let value: unknown
  try {
    value = parseYaml(yamlText)
  } catch (error) {
    throw new errors.ContentInvalid(file, `front matter is not YAML: ${(error as Error).message.split('\n')[0]}`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new errors.ContentInvalid(file, 'front matter must be a YAML mapping of field: value')
  }
  return value as Record<string, unknown>
}
