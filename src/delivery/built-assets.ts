import { createReadStream } from 'node:fs'
import path from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyStaticOptions } from '@fastify/static'
import { immutableAssetCacheControl } from '../../config/client-bundle.ts'
import { availableDictionaryHash } from '../compression/dictionaries.ts'
import { pathOf } from '../request-path.ts'
import { assetBase } from '../render/template.ts'
import { setChunkHeaders, type DictionaryDeltas } from './dictionary-assets.ts'
import type { Sender } from './send.ts'
import type { CodedFile, CodedVariants } from './coded-assets.ts'

/**
 * How @fastify/vite's static serving answers `/_next/static/...`: immutable caching, no validators (the content hash
 * in the name is one), and nothing of the SSR build: @fastify/vite adds its chunks folder as a second root of
 * `/_next/static/chunks/`, and server code is never public.
 */
export function builtAssetOptions(distDir: string, sender: Sender): Partial<FastifyStaticOptions> {
  const serverBuildDir = path.join(distDir, 'server') + path.sep
  return {
    // Cache-Control is set whole; @fastify/static's own maxAge would not say `public`.
    cacheControl: false,
    etag: false,
    lastModified: false,
    setHeaders(reply) {
      reply.header('cache-control', immutableAssetCacheControl)
      // Sent as it is because the request takes none of its codings (or it has none): the answer still varies by
      // the coding a request takes, for caches between.
      sender.varyByCoding(reply)
      // A chunk is a dictionary for the next deployment's, and its coding depends on the one the browser holds
      // (src/delivery/dictionary-assets.ts).
      setChunkHeaders(reply, reply.request.url, sender)
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
    // The `.br`, `.gz` and `.zst` written at build time and the dictionary deltas go out through the sender before
    // this (`codedAssetHandler`): what reaches @fastify/static is sent as the file it is.
    preCompressed: false,
  }
}

/**
 * Sends a built asset in the coding the sender negotiates for it: a chunk's delta against the dictionary the request
 * names (`Available-Dictionary`, RFC 9842 `dcb`, `dcz`: docs/compression.md "Dictionaries"), else the file's `.br`,
 * `.zst` or `.gz` written at build time, of those it has, as `compression.codingPreference.builtAsset` orders them.
 * The answer has the headers @fastify/static gives a file (type, year-long immutable Cache-Control, `Vary`,
 * Content-Length, no validator: the hash in the name is one), without byte ranges. Every other request (no coding
 * taken, or a file without codings) goes on to @fastify/static, which sends the file as it is. A preHandler of the
 * asset routes: every hook before it runs as for any asset.
 */
export function codedAssetHandler(
  sender: Sender,
  codedAssets: ReadonlyMap<string, CodedVariants>,
  deltas: DictionaryDeltas,
) {
  /** The delta this request takes, if any: one against the dictionary it names, in a coding it takes. */
  function deltaFor(request: FastifyRequest, urlPath: string): { coded: CodedFile; coding: string } | undefined {
    const byDictionary = deltas.get(urlPath)
    if (!byDictionary) return undefined
    const header = request.headers['available-dictionary']
    const hash = availableDictionaryHash(Array.isArray(header) ? undefined : header)
    const against = hash === undefined ? undefined : byDictionary.get(hash)
    if (!against) return undefined
    const coding = sender.dictionaryCodingFor(request, against.smallestFirst)
    const coded = coding && against.byCoding[coding]
    return coding && coded ? { coded, coding } : undefined
  }

  function sendCoded(request: FastifyRequest, reply: FastifyReply, { file, bytes, type }: CodedFile, coding: string) {
    reply.code(200).type(type).header('cache-control', immutableAssetCacheControl)
    setChunkHeaders(reply, request.url, sender)
    sender.varyByCoding(reply)
    reply.header('content-encoding', coding).header('content-length', bytes)
    reply.send(request.method === 'HEAD' ? undefined : createReadStream(file))
  }

  return function sendCodedAsset(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    if (!request.url.startsWith(assetBase) || (request.method !== 'GET' && request.method !== 'HEAD')) return done()
    const urlPath = pathOf(request.url)
    const delta = deltaFor(request, urlPath)
    if (delta) return sendCoded(request, reply, delta.coded, delta.coding)
    const variants = codedAssets.get(urlPath)
    const coding = variants && sender.builtAssetCodingFor(request, variants)
    const coded = coding && coding !== 'identity' ? variants[coding] : undefined
    if (coding && coded) return sendCoded(request, reply, coded, coding)
    done()
  }
}
