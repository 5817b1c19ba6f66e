import Link from 'next/link'
import { createElement, Fragment, type ReactNode } from 'react'
import type { MarkdownNode } from '../site'

/** Courier's Markdown walk (client/components/markdown.tsx), with Next's Link for the site's own paths. */
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
  img: ['src', 'alt', 'title'],
  h1: ['id'],
  h2: ['id'],
  h3: ['id'],
  h4: ['id'],
  h5: ['id'],
  h6: ['id'],
}

function render(node: MarkdownNode, key: number): ReactNode {
  if (node.type === 'text') return node.value
  if (node.type === 'root') return createElement(Fragment, { key }, ...node.children.map(render))
  if (node.type !== 'element' || !(node.tagName in allowed)) return null
  const props: Record<string, unknown> = { key }
  for (const name of allowed[node.tagName] ?? []) {
    const value = node.properties[name]
    if (value !== undefined && value !== null) props[name] = Array.isArray(value) ? value.join(' ') : value
  }
  const children = node.children.map(render)
  const href = String(props.href ?? '')
  if (node.tagName === 'a' && href.startsWith('/') && !href.startsWith('//'))
    return createElement(Link, { ...props, href }, ...children)
  return createElement(node.tagName, props, ...children)
}

export function Markdown({ content }: { content: MarkdownNode }) {
  return <>{content.type === 'root' ? content.children.map(render) : null}</>
}

/** The text of a tree, as the FAQ filter searches it. */
export function textOf(node: MarkdownNode): string {
  if (node.type === 'text') return node.value
  return node.type === 'root' || node.type === 'element' ? node.children.map(textOf).join('') : ''
}
