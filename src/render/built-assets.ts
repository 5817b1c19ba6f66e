import path from 'node:path'
import type { FastifyStaticOptions } from '@fastify/static'

/** Built assets have content-hashed names: cache them for a year, never revalidate (README "Architecture"). */
export const immutableAssetCacheControl = 'public, max-age=31536000, immutable'

/**
 * How @fastify/vite's static serving answers `/_next/static/...`: immutable caching, no validators (the content hash
 * in the name is one), and nothing of the SSR build: @fastify/vite adds its chunks folder as a second root of
 * `/_next/static/chunks/`, and server code is never public.
 */
export function builtAssetOptions(distDir: string): Partial<FastifyStaticOptions> {
  const serverBuildDir = path.join(distDir, 'server') + path.sep
  return {
    // Cache-Control is set whole; @fastify/static's own maxAge would not say `public`.
    cacheControl: false,
    etag: false,
    lastModified: false,
    setHeaders(reply) {
      reply.header('cache-control', immutableAssetCacheControl)
    },
    // A name only the SSR build has (its chunks) is a 404, not the server's source.
    allowedPath(_pathname, root) {
      return root === undefined || !path.resolve(root).startsWith(serverBuildDir)
    },
    // The build writes no dotfiles into its chunks; one that appears there is not the site's to serve.
    dotfiles: 'deny',
    // `<file>.br` and `<file>.gz` written at build time (src/build/precompress.ts), sent as the client accepts.
    preCompressed: true,
  }
}
