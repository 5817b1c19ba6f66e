import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import { readdirSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'

export interface PublicFilesOptions {
  /** The folder served at `/`: favicon.ico, images/. */
  root: string
}

/**
 * Every file under `root`, as `/`-separated paths relative to it, in order: links followed (a link to a folder it is
 * already inside is not, so a link back up ends), nothing whose name starts with a dot, nor anything inside such a
 * folder. None for a missing root.
 */
export function publicFilesUnder(root: string): string[] {
  const files: string[] = []
  const walk = (folder: string, outer: ReadonlySet<string>) => {
    const absolute = path.join(root, folder)
    let real: string
    try {
      real = realpathSync(absolute)
    } catch {
      return
    }
    if (outer.has(real)) return
    const inside = new Set(outer).add(real)
    for (const entry of readdirSync(absolute, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue
      const relative = folder ? `${folder}/${entry.name}` : entry.name
      const kind = entry.isSymbolicLink() ? statSync(path.join(root, relative), { throwIfNoEntry: false }) : entry
      if (kind?.isDirectory()) walk(relative, inside)
      else if (kind?.isFile()) files.push(relative)
    }
  }
  walk('', new Set())
  return files
}

/**
 * Public files at their own paths (`/favicon.ico`, `/images/...`), served by @fastify/static: one route per file,
 * found at start-up, so unknown paths reach the not-found handler and dotfiles and folders are never served. The
 * folder is walked here rather than by @fastify/static's `wildcard: false`, which walks it with `glob`: a package
 * whose first walk cost a start 10-15 ms, for a folder of a few files (docs/runtime.md "Cold start").
 */
async function publicFiles(fastify: FastifyInstance, options: PublicFilesOptions) {
  const root = path.resolve(options.root)
  await fastify.register(fastifyStatic, {
    root,
    // Only reply.sendFile; the routes are below.
    serve: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    redirect: false,
    // Public files keep their names across deployments: cache briefly, revalidate with the ETag.
    cacheControl: false,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=3600, must-revalidate')
    },
  })
  for (const file of publicFilesUnder(root)) {
    const url = `/${file}`
    fastify.route({
      method: ['HEAD', 'GET'],
      url,
      handler(_request, reply) {
        return reply.sendFile(url, root)
      },
    })
  }
}

// Encapsulated: @fastify/vite registers @fastify/static too, and reply.sendFile may be decorated once per scope.
export default fp(publicFiles, { name: 'courier-public-files', fastify: '5.x', encapsulate: true })
