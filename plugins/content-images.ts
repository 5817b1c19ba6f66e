import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { contentImages } from '../config/content.ts'
import type { ContentSource } from '../src/content/content-source.ts'
import { errors } from '../src/errors.ts'
import { matchesIfNoneMatch, strongEtag } from '../src/etag.ts'

export interface ContentImagesOptions {
  /** The site's content (CONTENT_DIR): its `images/` folder. */
  content: ContentSource
  /** IMAGES_ALLOW_SVG: serve `.svg` files too (sandboxed by the CSP, as the optimizer does); 404 otherwise. */
  allowSvg?: boolean
}

const imagesRoute = `${contentImages.urlPrefix}:file`
const imageMethods = ['GET', 'HEAD'] as const

/**
 * GET /content/images/<file> (docs/content.md "Images of the content"): the images that belong to the content, read
 * from CONTENT_DIR/images at each request by the content's rules (regular files only, no link out of the folder,
 * reads bounded in time), so an image added, replaced or removed is served, changed or 404 at once, on every instance
 * that reads the folder, without a build. Only a lower-case `.png .jpg .jpeg .gif .webp .avif` name (and `.svg` with
 * IMAGES_ALLOW_SVG); anything else is a 404. Revalidated like pages: a strong ETag from the bytes, `max-age=0,
 * must-revalidate`, 304 for If-None-Match; sent with its extension's type, `nosniff` and the optimizer's sandboxing
 * CSP. The same files are local sources of `/_next/image` (plugins/image.ts).
 */
async function contentImagesRoute(fastify: FastifyInstance, options: ContentImagesOptions) {
  const { content, allowSvg = false } = options
  if (!content || typeof content.image !== 'function') {
    throw new errors.OptionInvalid('content', 'the content source (src/content/content-source.ts)')
  }

  function typeOf(file: string): string | undefined {
    if (!contentImages.namePattern.test(file)) return undefined
    const extension = file.slice(file.lastIndexOf('.') + 1)
    if (extension === 'svg' && !allowSvg) return undefined
    return contentImages.types[extension]
  }

  fastify.get<{ Params: { file: string } }>(
    imagesRoute,
    async function serveContentImage(request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) {
      const type = typeOf(request.params.file)
      const bytes = type === undefined ? undefined : await content.image(request.params.file)
      if (!type || !bytes) return reply.callNotFound()
      const etag = strongEtag(bytes)
      reply
        .header('etag', etag)
        .header('cache-control', contentImages.cacheControl)
        .header('content-security-policy', contentImages.contentSecurityPolicy)
        .header('x-content-type-options', 'nosniff')
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send()
      return reply.type(type).send(bytes)
    },
  )
  fastify.methodTable?.allow(imagesRoute, imageMethods)
}

export default fp(contentImagesRoute, { name: 'courier-content-images', fastify: '5.x' })
