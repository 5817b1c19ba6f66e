import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ContentSource } from '../src/content/content-source.ts'
import type { ServerPage } from '../src/pages/site.ts'
import { errors } from '../src/errors.ts'
import { escapeHtml } from '../src/render/template.ts'
import { SingleFlight } from '../src/toolbox/single-flight.ts'

export interface SitemapOptions {
  /** Public origin, e.g. `https://courier.example` (SITE_URL): absolute URLs never come from the Host header. */
  siteUrl: string
  /** The pages to list (src/pages/site.ts: the site's public pages). */
  pages: readonly ServerPage[]
  /** The content parametrised pages list their instances from (their `staticParams`). */
  content: ContentSource
}

/** A page of the sitemap: its path, and when it last changed (`lastmod`) if its server side says. */
export interface SitemapEntry {
  path: string
  lastModified?: string | undefined
}

/**
 * Every page path: parametrised pages expanded through their server-side `staticParams`, each with its `lastModified`,
 * read from the content's index now (no guide's body is read).
 */
export async function listPageEntries(pages: readonly ServerPage[], content: ContentSource): Promise<SitemapEntry[]> {
  const entries: SitemapEntry[] = []
  for (const page of pages) {
    const instances = page.path.includes(':') ? ((await page.staticParams?.({ content })) ?? []) : [{}]
    for (const params of instances) {
      const path = page.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''))
      entries.push({ path, lastModified: await page.lastModified?.(params, { content }) })
    }
  }
  return entries
}

function urlset(siteUrl: string, entries: readonly SitemapEntry[]): string {
  const urls = entries.map(({ path, lastModified }) => {
    const lastmod = lastModified === undefined ? '' : `<lastmod>${escapeHtml(lastModified)}</lastmod>`
    return `  <url><loc>${escapeHtml(siteUrl + path)}</loc>${lastmod}</url>`
  })
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`
  )
}

function sitemapIndex(siteUrl: string, files: string[]): string {
  const entries = files.map((file) => `  <sitemap><loc>${escapeHtml(`${siteUrl}/${file}`)}</loc></sitemap>`).join('\n')
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</sitemapindex>\n`
  )
}

/** Sitemaps hold at most 50,000 URLs each (sitemaps.org protocol), and 50 MB: a URL of the site is far below the
 * 1,000 bytes that would take (`<url><loc>` with a 100-character path and a `lastmod` is some 150). */
const urlsPerSitemap = 50_000

interface SitemapFiles {
  index: string
  chunks: string[]
}

/**
 * /robots.txt, /sitemap.xml (an index) and /sitemap-<n>.xml, from the page table and the index of the content
 * (src/content/content-index.ts): made once per version of the index (a guide added to CONTENT_DIR is listed once the
 * index has seen it), concurrent requests sharing one making.
 */
async function sitemap(fastify: FastifyInstance, options: SitemapOptions) {
  if (!URL.canParse(options.siteUrl) || !/^https?:$/.test(new URL(options.siteUrl).protocol)) {
    throw new errors.OptionInvalid('siteUrl', 'an absolute http(s) origin such as https://courier.example')
  }
  const { pages, content } = options
  const siteUrl = options.siteUrl.replace(/\/+$/, '')
  const robots = `User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${siteUrl}/sitemap.xml\n`
  const cacheControl = 'public, max-age=3600'
  const making = new SingleFlight<number, SitemapFiles>()
  let kept: { version: number; files: SitemapFiles } | undefined

  async function makeFiles(): Promise<SitemapFiles> {
    const entries = await listPageEntries(pages, content)
    const chunks: string[] = []
    for (let start = 0; start < entries.length; start += urlsPerSitemap) {
      chunks.push(urlset(siteUrl, entries.slice(start, start + urlsPerSitemap)))
    }
    return {
      index: sitemapIndex(
        siteUrl,
        chunks.map((_chunk, index) => `sitemap-${index}.xml`),
      ),
      chunks,
    }
  }

  async function currentFiles(): Promise<SitemapFiles> {
    const { version } = await content.guideIndex()
    if (kept?.version === version) return kept.files
    const files = await making.run(version, makeFiles)
    if (version >= (kept?.version ?? 0)) kept = { version, files }
    return files
  }

  fastify.get('/robots.txt', async function serveRobots(_request, reply) {
    return reply.type('text/plain; charset=utf-8').header('cache-control', cacheControl).send(robots)
  })
  fastify.get('/sitemap.xml', async function serveSitemapIndex(_request, reply) {
    const { index } = await currentFiles()
    return reply.type('application/xml; charset=utf-8').header('cache-control', cacheControl).send(index)
  })
  fastify.get<{ Params: { chunk: string } }>('/sitemap-:chunk.xml', async function serveSitemap(request, reply) {
    const { chunk } = request.params
    const body = /^(0|[1-9]\d{0,5})$/.test(chunk) ? (await currentFiles()).chunks[Number(chunk)] : undefined
    if (body === undefined) return reply.callNotFound()
    return reply.type('application/xml; charset=utf-8').header('cache-control', cacheControl).send(body)
  })
}

export default fp(sitemap, { name: 'courier-sitemap', fastify: '5.x' })
