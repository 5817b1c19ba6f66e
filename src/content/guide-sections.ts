import type { ElementContent, Root, RootContent } from 'hast'
import { errors } from '../errors.ts'
import { textOf } from './hast-text.ts'

/** One section of a guide: its `##` heading, the heading's anchor and what follows up to the next one. */
export interface GuideSection {
  heading: string
  anchor: string
  content: Root
}

/** A guide's body cut at its `##` headings; bad content when text comes before the first one or there is none. */
export function sectionsOf(body: Root, file: string): GuideSection[] {
  const sections: GuideSection[] = []
  for (const node of body.children) {
    if (node.type === 'element' && node.tagName === 'h2') {
      const content: Root = { type: 'root', children: [] }
      sections.push({ heading: textOf(node), anchor: String(node.properties.id), content })
      continue
    }
    const current = sections[sections.length - 1]
    if (!current) {
      throw new errors.ContentInvalid(file, 'text before the first ## heading (each section starts with one)')
    }
    current.content.children.push(node as RootContent & ElementContent)
  }
  if (sections.length === 0) throw new errors.ContentInvalid(file, 'no ## heading: the body is made of sections')
  return sections
}
