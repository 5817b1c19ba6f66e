import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyStaticOptions } from '@fastify/static'
import { clientBundle, immutableAssetCacheControl } from '../../config/client-bundle.ts'
import { setChunkHeaders } from './dictionary-assets.ts'
import { assetBase } from './template.ts'

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
      // A chunk is a dictionary for the next deployment's, and its coding depends on the one the browser holds
      // (src/render/dictionary-assets.ts).
      setChunkHeaders(reply, reply.request.url)
    },
    // A name only the SSR build has (its chunks) is a 404, not the server's source.
    allowedPath(_pathname, root) {
      return root === undefined || !path.resolve(root).startsWith(serverBuildDir)
    },
    // The build writes no dotfiles into its chunks; one that appears there is not the site's to serve.
    dotfiles: 'deny',
    // @fastify/vite registers the client build's root a second time with one route per file, found by a glob walk
    // at start-up (its "public files"): the build has none outside the chunks, which the chunks folder's wildcard
    // route serves. Nothing is listed, so a start walks no folder and registers no route per chunk (docs/runtime.md
    // "Cold start").
    globIgnore: ['**'],
    // `<file>.br` and `<file>.gz` written at build time (src/build/precompress.ts), sent as the client accepts; the
    // `.zst` beside them goes out before this, where zstd is the coding (src/render/zstd-assets.ts).
    preCompressed: true,
  }
}

/**
 * The text of a built stylesheet the template links (`/_next/static/...css?dpl=...`), for the document to carry it
 * inline (docs/rendering.md "Loading order"): read once, when the template is compiled. Undefined for anything else, and for a
 * stylesheet above `clientBundle.inlineStylesheetMaxBytes`, which keeps its link and its own cache entry.
 */
export function builtStylesheetReader(clientDir: string): (href: string) => string | undefined {
  const root = path.resolve(clientDir) + path.sep
  return function readBuiltStylesheet(href) {
    const { pathname } = new URL(href, 'http://courier.invalid')
    if (!pathname.startsWith(assetBase) || !pathname.endsWith('.css')) return undefined
    const file = path.resolve(root, decodeURIComponent(pathname.slice(assetBase.length)))
    if (!file.startsWith(root)) return undefined
    try {
      if (statSync(file).size > clientBundle.inlineStylesheetMaxBytes) return undefined
      return readFileSync(file, 'utf8')
    } catch {
      return undefined
    }
  }
}
