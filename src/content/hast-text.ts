import type { ElementContent, Root, RootContent } from 'hast'

/** The text of a node, as a reader sees it. */
export function textOf(node: Root | RootContent | ElementContent): string {
  if (node.type === 'text') return node.value
  if (node.type === 'element' || node.type === 'root') return node.children.map(textOf).join('')
  return ''
}
