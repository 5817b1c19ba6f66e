import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ContentSource } from '../src/content/content-source.ts'
import type { ServerPage } from '../src/pages/site.ts'
import { errors } from '../src/errors.ts'
import { escapeHtml } from '../src/render/template.ts'

export interface SitemapOptions {
  /** Public origin, e.g. `https://courier.example` (SITE_URL): absolute URLs never come from the Host header. */
  siteUrl: string
  /** The pages to list (src/pages/site.ts: the site's public pages). */
  pages: readonly ServerPage[]
  /** The content parametrised pages list their instances from (their `staticParams`). */
  content: ContentSource
}

/** Every page path: parametrised pages expanded through their server-side `staticParams`, read from the content now. */
export async function listPagePaths(pages: readonly ServerPage[], content: ContentSource): Promise<string[]> {
  const paths: string[] = []
  for (const page of pages) {
    if (!page.path.includes(':')) {
      paths.push(page.path)
      continue
    }
    for (const params of (await page.staticParams?.({ content })) ?? []) {
      paths.push(page.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? '')))
    }
  }
  return paths
}

function urlset(siteUrl: string, paths: string[]): string {
  const urls = paths.map((path) => `  <url><loc>${escapeHtml(siteUrl + path)}</loc></url>`).join('\n')
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`
  )
}

function sitemapIndex(siteUrl: string, files: string[]): string {
  const entries = files.map((file) => `  <sitemap><loc>${escapeHtml(`${siteUrl}/${file}`)}</loc></sitemap>`).join('\n')
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</sitemapindex>\n`
  )
}

/** Sitemaps hold at most 50,000 URLs each (sitemaps.org protocol). */
const urlsPerSitemap = 50_000

interface SitemapFiles {
  index: string
  chunks: string[]
}

/**
 * /robots.txt, /sitemap.xml (an index) and /sitemap-<n>.xml, from the page table and the content as it is when asked
 * (a guide added to CONTENT_DIR is listed from then on): concurrent requests share one reading.
 */
async function sitemap(fastify: FastifyInstance, options: SitemapOptions) {
  if (!URL.canParse(options.siteUrl) || !/^https?:$/.test(new URL(options.siteUrl).protocol)) {
    throw new errors.OptionInvalid('siteUrl', 'an absolute http(s) origin such as https://courier.example')
  }
  const { pages, content } = options
  const siteUrl = options.siteUrl.replace(/\/+$/, '')
  const robots = `User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${siteUrl}/sitemap.xml\n`
  const cacheControl = 'public, max-age=3600'
  let reading: Promise<SitemapFiles> | undefined

  async function readFiles(): Promise<SitemapFiles> {
    const paths = await listPagePaths(pages, content)
    const chunks: string[] = []
    for (let start = 0; start < paths.length; start += urlsPerSitemap) {
      chunks.push(urlset(siteUrl, paths.slice(start, start + urlsPerSitemap)))
    }
    return {
      index: sitemapIndex(
        siteUrl,
        chunks.map((_chunk, index) => `sitemap-${index}.xml`),
      ),
      chunks,
    }
  }

  function currentFiles(): Promise<SitemapFiles> {
    if (!reading) reading = readFiles().finally(() => (reading = undefined))
    return reading
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
