import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ServerPage } from '../src/pages/site.ts'
import { errors } from '../src/errors.ts'
import { escapeHtml } from '../src/render/template.ts'

export interface SitemapOptions {
  /** Public origin, e.g. `https://courier.example` (SITE_URL): absolute URLs never come from the Host header. */
  siteUrl: string
  /** The pages to list (src/pages/site.ts: the site's public pages). */
  pages: readonly ServerPage[]
}

/** Every page path: parametrised pages expanded through their server-side `staticParams`. */
export function listPagePaths(pages: readonly ServerPage[]): string[] {
  const paths: string[] = []
  for (const page of pages) {
    if (!page.path.includes(':')) {
      paths.push(page.path)
      continue
    }
    for (const params of page.staticParams?.() ?? []) {
      paths.push(page.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? '')))
    }
  }
  return paths
}

function urlset(siteUrl: string, paths: string[]): string {
  const urls = paths.map((path) => `  <url><loc>${escapeHtml(siteUrl + path)}</loc></url>`).join('\n')
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`
}

function sitemapIndex(siteUrl: string, files: string[]): string {
  const entries = files.map((file) => `  <sitemap><loc>${escapeHtml(`${siteUrl}/${file}`)}</loc></sitemap>`).join('\n')
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</sitemapindex>\n`
}

/** Sitemaps hold at most 50,000 URLs each (sitemaps.org protocol). */
const urlsPerSitemap = 50_000

/**
 * /robots.txt, /sitemap.xml (an index) and /sitemap-<n>.xml, generated once at start-up from the page table.
 */
async function sitemap(fastify: FastifyInstance, options: SitemapOptions) {
  if (!URL.canParse(options.siteUrl) || !/^https?:$/.test(new URL(options.siteUrl).protocol)) {
    throw new errors.OptionInvalid('siteUrl', 'an absolute http(s) origin such as https://courier.example')
  }
  const siteUrl = options.siteUrl.replace(/\/+$/, '')
  const paths = listPagePaths(options.pages)
  const chunks: string[][] = []
  for (let start = 0; start < paths.length; start += urlsPerSitemap) chunks.push(paths.slice(start, start + urlsPerSitemap))
  const files = chunks.map((_chunk, index) => `sitemap-${index}.xml`)
  const index = sitemapIndex(siteUrl, files)
  const robots = `User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${siteUrl}/sitemap.xml\n`
  const cacheControl = 'public, max-age=3600'

  fastify.get('/robots.txt', async function serveRobots(_request, reply) {
    return reply.type('text/plain; charset=utf-8').header('cache-control', cacheControl).send(robots)
  })
  fastify.get('/sitemap.xml', async function serveSitemapIndex(_request, reply) {
    return reply.type('application/xml; charset=utf-8').header('cache-control', cacheControl).send(index)
  })
  chunks.forEach((chunk, chunkIndex) => {
    const body = urlset(siteUrl, chunk)
    fastify.get(`/sitemap-${chunkIndex}.xml`, async function serveSitemap(_request, reply) {
      return reply.type('application/xml; charset=utf-8').header('cache-control', cacheControl).send(body)
    })
  })
}

export default fp(sitemap, { name: 'courier-sitemap', fastify: '5.x' })
