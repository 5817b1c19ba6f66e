import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { contentImages } from '../config/content.ts'
import type { ContentSource } from '../src/content/content-source.ts'
import { errors } from '../src/errors.ts'
import { matchesIfNoneMatch } from '../src/etag.ts'

export interface ContentImagesOptions {
  /** The site's content (CONTENT_DIR): its `images/` folder. */
  content: ContentSource
  /** IMAGES_ALLOW_SVG: serve `.svg` files too (sandboxed by the CSP, as the optimizer does); 404 otherwise. */
  allowSvg?: boolean
}

const imagesRoute = `${contentImages.urlPrefix}:file`
const imageMethods = ['GET', 'HEAD'] as const

/**
 * GET /content/images/<file> (docs/content.md "Images of the content"): the images that belong to the content, opened
 * in CONTENT_DIR/images at each request by the content's rules (regular files only, no link out of the folder, reads
 * bounded in time, at most the optimizer's source limit: a larger file is a 404 with one warn line per version), so an
 * image added, replaced or removed is served, changed or 404 at once, on every instance that reads the folder, without
 * a build. Only a lower-case `.png .jpg .jpeg .gif .webp .avif` name (and `.svg` with IMAGES_ALLOW_SVG); anything else
 * is a 404. Streamed from its descriptor as the client reads (a slow client holds one chunk of the instance's memory,
 * not the file; one that leaves closes it). Revalidated like pages: a strong ETag from the bytes, hashed once per
 * version of the file (src/content/image-versions.ts), `max-age=0, must-revalidate`, 304 for If-None-Match; HEAD and
 * 304 read nothing but the opening. Sent with its extension's type, `nosniff` and the optimizer's sandboxing CSP. The
 * same files are local sources of `/_next/image` (plugins/image.ts).
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

  // HEAD is a route of its own (not Fastify's, which would read a streamed body to its end to drop it): it opens the
  // file and answers its length and tag without reading it.
  fastify.route<{ Params: { file: string } }>({
    method: [...imageMethods],
    url: imagesRoute,
    handler: async function serveContentImage(request, reply) {
      const type = typeOf(request.params.file)
      const image = type === undefined ? undefined : await content.openImage(request.params.file)
      if (!type || !image) return reply.callNotFound()
      let etag: string
      try {
        etag = await image.etag()
      } catch (error) {
        await image.close()
        throw error
      }
      reply
        .header('etag', etag)
        .header('cache-control', contentImages.cacheControl)
        .header('content-security-policy', contentImages.contentSecurityPolicy)
        .header('x-content-type-options', 'nosniff')
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
        await image.close()
        return reply.code(304).send()
      }
      reply.type(type).header('content-length', image.bytes)
      if (request.method === 'HEAD') {
        await image.close()
        return reply.send()
      }
      return reply.send(image.stream())
    },
  })
  fastify.methodTable?.allow(imagesRoute, imageMethods)
}

export default fp(contentImagesRoute, { name: 'courier-content-images', fastify: '5.x' })
