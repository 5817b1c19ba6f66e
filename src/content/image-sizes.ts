import type { ElementContent, Root } from 'hast'
import { contentImages } from '../../config/content.ts'
import { errors } from '../errors.ts'

/** Where a missing image is told (a pino logger in the app). */
interface ImageLog {
  warn(fields: Record<string, unknown>, message: string): void
}

/** Whether a body draws an image of the content anywhere (most draw none: their tree is used as it is). */
export function hasContentImage(node: Root | ElementContent): boolean {
  if (node.type === 'element' && node.tagName === 'img') {
    return String(node.properties.src ?? '').startsWith(contentImages.urlPrefix)
  }
  return (
    (node.type === 'element' || node.type === 'root') &&
    node.children.some((child) => hasContentImage(child as ElementContent))
  )
}

/** An image's pixel size, or undefined when it has none to give (not there, not content, no header). */
type ImageSizeOf = (name: string) => Promise<{ width: number; height: number } | undefined>

/**
 * A body with each of its content images' pixel size (read from the image's header when the content loads, so the
 * page reserves its box; docs/content.md "Images of the content"): `![alt](/content/images/<name>)` must have its alt
 * text; an image that is not there is named in a warn line and drawn as it is. Asked per load, not kept with the
 * parse: an image added or replaced is seen by the next load of the page. Each distinct image of the body is asked
 * once, however often it is drawn; `sizeOf` keeps what it read per version of the file.
 */
export async function withImageSizes(body: Root, file: string, sizeOf: ImageSizeOf, log: ImageLog | undefined): Promise<Root> {
  const sources = new Set<string>()
  collectImages(body, file, sources)
  const sizes = new Map(
    await Promise.all(
      [...sources].map(async (src) => [src, await sizeOf(src.slice(contentImages.urlPrefix.length))] as const),
    ),
  )
  for (const [src, size] of sizes) {
    if (!size) log?.warn({ file, image: src }, 'content image missing: drawn without its size')
  }
  const walk = <Node extends Root | ElementContent>(node: Node): Node => {
    if (node.type !== 'element' && node.type !== 'root') return node
    if (node.type === 'element' && node.tagName === 'img') {
      const size = sizes.get(String(node.properties.src ?? ''))
      return size ? ({ ...node, properties: { ...node.properties, ...size } } as Node) : node
    }
    return { ...node, children: node.children.map((child) => walk(child as ElementContent)) } as Node
  }
  return walk(body)
}

/** The `src` of each content image the body draws, into `sources`; one without its alt text fails the file. */
function collectImages(node: Root | ElementContent, file: string, sources: Set<string>): void {
  if (node.type !== 'element' && node.type !== 'root') return
  if (node.type === 'element' && node.tagName === 'img') {
    const src = String(node.properties.src ?? '')
    if (!src.startsWith(contentImages.urlPrefix)) return
    if (String(node.properties.alt ?? '').trim() === '') {
      throw new errors.ContentInvalid(file, `the image ${src} has no alt text: write ![what it shows](${src})`)
    }
    sources.add(src)
    return
  }
  for (const child of node.children) collectImages(child as ElementContent, file, sources)
}
