import { createElement, Fragment, type ReactNode } from 'react'
import type { MarkdownContent } from '../../site/data-types.ts'
import { contentImagePrefix } from '../../config/images.ts'
import { contentColumn } from '../../src/common/image-sources.ts'
import { Image } from './image.tsx'
import { Link } from './link.tsx'

type Node = MarkdownContent | MarkdownContent['children'][number]

/**
 * The elements CommonMark gives (mdast-util-to-hast's output for it), and the properties each may carry, by the
 * name React takes. Anything else in a tree is left out: the tree comes from the server's parser, which drops raw
 * HTML, and this list keeps a tree from ever carrying an event handler or a style whatever it holds.
 */
const allowed: Readonly<Record<string, readonly string[]>> = {
  p: [],
  em: [],
  strong: [],
  code: ['className'],
  pre: [],
  blockquote: [],
  hr: [],
  br: [],
  ul: [],
  ol: ['start'],
  li: [],
  a: ['href', 'title'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  h1: ['id'],
  h2: ['id'],
  h3: ['id'],
  h4: ['id'],
  h5: ['id'],
  h6: ['id'],
}

function propsOf(tagName: string, properties: Readonly<Record<string, unknown>>, key: number): Record<string, unknown> {
  const props: Record<string, unknown> = { key }
  for (const name of allowed[tagName] ?? []) {
    const value = properties[name]
    if (value === undefined || value === null) continue
    props[name] = Array.isArray(value) ? value.join(' ') : value
  }
  return props
}

function render(node: Node, key: number): ReactNode {
  if (node.type === 'text') return node.value
  if (node.type === 'root') return createElement(Fragment, { key }, ...node.children.map(render))
  if (node.type !== 'element' || !(node.tagName in allowed)) return null
  const props = propsOf(node.tagName, node.properties, key)
  const children = node.children.map(render)
  if (node.tagName === 'img' && String(props.src ?? '').startsWith(contentImagePrefix) && props.width && props.height) {
    // An image of the content, its size read by the server: through the optimizer, as wide as the column at most.
    const { src, alt, width, height } = props as { src: string; alt: string; width: number; height: number }
    return createElement(Image, { key, src, alt, width, height, slot: contentColumn })
  }
  if (node.tagName === 'a') {
    // A path of this site goes through the client router; any other address is a plain link.
    const href = String(props.href ?? '')
    if (href.startsWith('/') && !href.startsWith('//')) return createElement(Link, { ...props, href }, ...children)
  }
  return createElement(node.tagName, props, ...(children.length > 0 ? children : []))
}

/**
 * Content the server parsed from Markdown (src/content/markdown.ts), drawn as React elements: the parser never
 * reaches the browser (a small walk over the tree does), and nothing in a content file runs as code.
 */
export function Markdown({ content }: { content: MarkdownContent }) {
  return <>{content.children.map(render)}</>
}
