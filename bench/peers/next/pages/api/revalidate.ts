/**
 * Courier's `POST /api/revalidate` (docs/content.md) on Next's pages router: `Authorization: Bearer <REVALIDATE_TOKEN>`
 * and a JSON body `{ "paths": [...], "tags": [...] }`; each path is regenerated with `res.revalidate(path)` before the
 * answer, 200 `{ revalidated, now }`. A page this process has not generated yet needs nothing (`unstable_onlyGenerated`:
 * it is loaded when first asked, as Courier does). Next's pages router has no tags: each tag is turned into the paths of the pages
 * Courier's loaders give it (`guides`: `/`, `/guides` and every guide; `guide:<slug>`: that guide; `faq`: `/faq`).
 * `res.revalidate` regenerates the page in this process only: another `next start` serving the same site keeps its
 * own copy until its `revalidate` seconds are over.
 * 401 without the token or with another (compared in constant time), 400 for a bad body, 404 when REVALIDATE_TOKEN is
 * unset, 405 for another method, 500 naming the paths Next failed to regenerate.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { NextApiRequest, NextApiResponse } from 'next'
import { peerContent } from '../../content'
import site from '../../site'

/** Courier's limits (config/content.ts `revalidation`, through site.json): items, characters, token length. */
const { maxItems, maxItemLength, minTokenLength } = site.revalidation

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/** A list of the body: its items, or what is wrong with it. */
function readList(value: unknown, name: 'paths' | 'tags'): string[] | string {
  if (value === undefined) return []
  const pattern = name === 'paths' ? /^\// : /^[\x21-\x7e]+$/
  if (!Array.isArray(value) || value.length > maxItems) return `${name} is a list of at most ${maxItems} items`
  for (const item of value) {
    if (typeof item !== 'string' || item.length === 0 || item.length > maxItemLength || !pattern.test(item)) {
      return name === 'paths'
        ? `each path is text starting with / (at most ${maxItemLength} characters)`
        : 'each tag is text without spaces'
    }
  }
  return value as string[]
}

/** The body's paths and tags, or what is wrong with it (Courier's checks, plugins/revalidate.ts). */
function readBody(body: unknown): { paths: string[]; tags: string[] } | string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is a JSON object'
  const paths = readList((body as { paths?: unknown }).paths, 'paths')
  if (typeof paths === 'string') return paths
  const tags = readList((body as { tags?: unknown }).tags, 'tags')
  if (typeof tags === 'string') return tags
  if (paths.length === 0 && tags.length === 0) return 'name at least one path or tag'
  return { paths, tags }
}

export default async function revalidateRoute(request: NextApiRequest, response: NextApiResponse) {
  const token = process.env.REVALIDATE_TOKEN
  response.setHeader('cache-control', 'no-store')
  if (token === undefined || token.length < minTokenLength) return response.status(404).json({ error: 'not found' })
  if (request.method !== 'POST') {
    response.setHeader('allow', 'POST')
    return response.status(405).json({ error: 'method not allowed' })
  }
  const header = request.headers.authorization ?? ''
  const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : ''
  if (!timingSafeEqual(digest(presented), digest(token))) return response.status(401).json({ error: 'unauthorized' })
  const wanted = readBody(request.body)
  if (typeof wanted === 'string') return response.status(400).json({ error: wanted })

  const content = await peerContent()
  const fromTags = (await Promise.all(wanted.tags.map((tag) => content.pathsOfTag(tag)))).flat()
  const paths = [...new Set([...wanted.paths.map((path) => path.split(/[?#]/)[0]!), ...fromTags])]
  const failed: string[] = []
  await Promise.all(
    paths.map(async (path) => {
      try {
        await response.revalidate(path, { unstable_onlyGenerated: true })
      } catch (error) {
        failed.push(path)
        process.stderr.write(
          `${JSON.stringify({ msg: 'peer revalidation failed', path, err: (error as Error).message })}\n`,
        )
      }
    }),
  )
  if (failed.length) return response.status(500).json({ error: 'revalidation failed', failed })
  return response.status(200).json({ revalidated: wanted, now: Date.now() })
}
