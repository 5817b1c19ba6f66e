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

/**
 * A body with each of its content images' pixel size (read from the image's header when the content loads, so the
 * page reserves its box; docs/content.md "Images of the content"): `![alt](/content/images/<name>)` must have its alt
 * text; an image that is not there is named in a warn line and drawn as it is. Done per load, not kept with the parse:
 * an image added or replaced is seen by the next load of the page. `readImage` reads one by the content's rules.
 */
export async function withImageSizes(
  body: Root,
  file: string,
  readImage: (name: string) => Promise<Buffer | undefined>,
  log: ImageLog | undefined,
): Promise<Root> {
  const walk = async <Node extends Root | ElementContent>(node: Node): Promise<Node> => {
    if (node.type !== 'element' && node.type !== 'root') return node
    const children = await Promise.all(node.children.map((child) => walk(child as ElementContent)))
    if (node.type === 'root') return { ...node, children } as Node
    if (node.tagName !== 'img') return { ...node, children } as Node
    const src = String(node.properties.src ?? '')
    if (!src.startsWith(contentImages.urlPrefix)) return node
    if (String(node.properties.alt ?? '').trim() === '') {
      throw new errors.ContentInvalid(file, `the image ${src} has no alt text: write ![what it shows](${src})`)
    }
    const size = await sizeOf(await readImage(src.slice(contentImages.urlPrefix.length)))
    if (!size) {
      log?.warn({ file, image: src }, 'content image missing: drawn without its size')
      return node
    }
    return { ...node, properties: { ...node.properties, ...size } } as Node
  }
  return walk(body)
}

async function sizeOf(bytes: Buffer | undefined): Promise<{ width: number; height: number } | undefined> {
  if (!bytes) return undefined
  // sharp reads the header only; it is loaded here, on the first content image, never at start-up.
  const { default: sharp } = await import('sharp')
  const { width, height } = await sharp(bytes).metadata().catch(() => ({ width: undefined, height: undefined }))
  return width && height ? { width, height } : undefined
}
