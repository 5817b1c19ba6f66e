import GithubSlugger from 'github-slugger'
import type { Element, ElementContent, Root, RootContent } from 'hast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { toHast } from 'mdast-util-to-hast'
import { errors } from '../errors.ts'
import { readFrontMatter, splitFrontMatter } from './front-matter.ts'
import { textOf } from './hast-text.ts'

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

export { textOf }
