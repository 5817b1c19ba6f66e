import GithubSlugger from 'github-slugger'
import type { Element, ElementContent, Root, RootContent } from 'hast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { toHast } from 'mdast-util-to-hast'
import { parse as parseYaml } from 'yaml'
import { errors } from '../errors.ts'
import { readSimpleFrontMatter } from './simple-front-matter.ts'

/** A Markdown file read: its front matter (YAML between `---` fences) and its body as an element tree. */
export interface MarkdownFile {
  frontMatter: Readonly<Record<string, unknown>>
  /** The body as a hast tree, without source positions (it travels as page data) and without raw HTML. */
  body: Root
}

/**
 * Parses Markdown (CommonMark, via micromark) with YAML front matter into an element tree: the server's half of
 * rendering content. Raw HTML in the text is dropped by mdast-util-to-hast (no `allowDangerousHtml`), so no
 * content file can put a script or an attribute on a page; every heading gets an `id` as GitHub spells it
 * (github-slugger), unique within the file, so `#anchor` links hold. `file` names the file in errors.
 */
export function parseMarkdown(text: string, file: string): MarkdownFile {
  const { yaml, markdown } = splitFrontMatter(text)
  const frontMatter = readFrontMatter(yaml, file)
  const body = toHast(fromMarkdown(markdown))
  if (body.type !== 'root') throw new errors.ContentInvalid(file, 'the Markdown did not give a document')
  const slugger = new GithubSlugger()
  const root: Root = { type: 'root', children: body.children.filter(notBlank).map((node) => stripped(node, slugger)) }
  return { frontMatter, body: root }
}

/**
 * The front matter alone, the body left unparsed: what a list of the files needs (a guide's title and summary), at a
 * fraction of a whole parse. The same rules and errors as parseMarkdown's front matter.
 */
export function parseFrontMatter(text: string, file: string): Readonly<Record<string, unknown>> {
  return readFrontMatter(splitFrontMatter(text).yaml, file)
}

/**
 * The YAML block that opens a file between two `---` lines (as Jekyll, Hugo and micromark's front matter read it:
 * the first line, nothing before it), and the Markdown after it.
 */
const frontMatterBlock = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/

function splitFrontMatter(text: string): { yaml: string | undefined; markdown: string } {
  const match = frontMatterBlock.exec(text)
  if (!match) return { yaml: undefined, markdown: text }
  return { yaml: match[1] ?? '', markdown: text.slice(match[0].length) }
}

function readFrontMatter(yamlText: string | undefined, file: string): Record<string, unknown> {
  if (yamlText === undefined) throw new errors.ContentInvalid(file, 'no front matter (a --- fenced YAML block first)')
  const simple = readSimpleFrontMatter(yamlText)
  if (simple) return simple
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

/** Whitespace between block elements: React would render it as text nodes, and page data would carry it. */
function notBlank(node: RootContent): boolean {
  return !(node.type === 'text' && node.value.trim() === '')
}

const headingTags = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])

/** A node without its source position (and comments, which the page never shows), headings with their `id`. */
function stripped<Node extends RootContent | ElementContent>(node: Node, slugger: GithubSlugger): Node {
  if (node.type === 'text') return { type: 'text', value: node.value } as Node
  if (node.type !== 'element') return node
  const properties = { ...node.properties }
  if (headingTags.has(node.tagName)) properties.id = slugger.slug(textOf(node))
  const element: Element = {
    type: 'element',
    tagName: node.tagName,
    properties,
    children: node.children.filter((child) => child.type !== 'comment').map((child) => stripped(child, slugger)),
  }
  return element as Node
}

/** The text of a node, as a reader sees it. */
export function textOf(node: Root | RootContent | ElementContent): string {
  if (node.type === 'text') return node.value
  if (node.type === 'element' || node.type === 'root') return node.children.map(textOf).join('')
  return ''
}
