/**
 * Server-only loaders of the test build's pages (test/site/pages.ts), keyed by page id like src/pages/loaders.ts.
 */
import { randomUUID } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { contentTags } from '../../src/content/content-source.ts'
import { textOf } from '../../src/content/hast-text.ts'
import type { LoaderTable } from '../../src/common/page-types.ts'
import type { PageImage } from '../../site/data-types.ts'
import type { TestPageData } from './pages.ts'

/**
 * `?delay=<ms>` of a test route: a whole number of milliseconds up to 5 s, `never` (infinity: the data never arrives),
 * else the route's default.
 */
function testDelayMs(requested: unknown, fallbackMs: number): number {
  if (requested === 'never') return Number.POSITIVE_INFINITY
  const delayMs = Number(requested)
  return Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= 5000 ? delayMs : fallbackMs
}

/** The site's public images (client/public/images/, served at /images/), whatever they are, with their pixel sizes
 * read by sharp (loaded here, on the first request, as the optimizer loads it). */
async function publicImages(): Promise<PageImage[]> {
  const folder = path.join(projectRoot, 'client', 'public', 'images')
  const names = (await readdir(folder)).filter((name) => /\.(jpe?g|png|webp|avif)$/.test(name)).sort()
  const { default: sharp } = await import('sharp')
  return Promise.all(
    names.map(async (name) => {
      const { width, height } = await sharp(path.join(folder, name)).metadata()
      return { src: `/images/${name}`, width, height, alt: `The public image ${name}.` }
    }),
  )
}

export const testPageLoaders = {
  'test-slow': {
    load: ({ query }) => ({ props: { delayMs: testDelayMs(query.delay, 300) } }),
  },
  'test-server-error': {
    load: () => {
      throw new Error('a page loader failed on purpose (test route)')
    },
  },
  // Pages without data: rendered with `{}`, no loader runs.
  'test-shell-error': {},
  'test-client-error': {},
  'test-late-error': {
    load: ({ query }) => ({ props: { delayMs: testDelayMs(query.delay, 100) } }),
  },
  'test-links': {
    // 20 distinct static pages to link to: every guide's test page, then slugs no guide has (a not-found each); or the
    // paths `to` lists (comma-separated), in a grid.
    load: async ({ query, content }) => {
      if (typeof query.to === 'string') return { props: { layout: 'grid', hrefs: query.to.split(',') } }
      const slugs = (await content.guideSummaries()).map((guide) => guide.slug)
      for (let index = 1; slugs.length < 20; index++) slugs.push(`missing-${index}`)
      const hrefs = slugs.map((slug) => `/__test/guides/${slug}`)
      return { props: { layout: query.layout === 'grid' ? 'grid' : 'spaced', hrefs } }
    },
  },
  'test-images': {
    load: async ({ query }) => {
      const images = await publicImages()
      const [hero, ...rest] = images
      return { props: query.hero === undefined || !hero ? { images } : { images: rest, hero } }
    },
  },
  'test-partial': {
    // Once per kept version: a revalidation of /__test/partial makes a new token, and a new shell.
    keep: () => ({ props: { keptToken: randomUUID() } }),
    // Per request, after `?delay=` ms (`never`: it never answers); `?fail=1` throws.
    load: async ({ query }) => {
      const delayMs = testDelayMs(query.delay, 0)
      await new Promise((resolve) => (Number.isFinite(delayMs) ? setTimeout(resolve, delayMs) : undefined))
      if (query.fail === '1') throw new Error('a request-time loader failed on purpose (test route)')
      return { props: { requestToken: typeof query.token === 'string' ? query.token : 'none' } }
    },
  },
  // No loader: a static page without data.
  'test-static': {},
  'test-dynamic': {
    load: ({ deploymentId }) => ({ props: { deploymentId } }),
  },
  'test-filter': {
    load: async ({ content }) => {
      const { entries: read } = await content.faq()
      const entries = read.map(({ question, answer }) => ({ question, answer: textOf(answer) }))
      return { props: { entries }, tags: [contentTags.faq] }
    },
  },
  'test-guides': {
    load: async ({ content }) => ({
      props: { guides: [...(await content.guideSummaries())] },
      tags: [contentTags.guides],
    }),
  },
  'test-guide': {
    // The guide, else a not-found; its neighbours for the pager (their titles are on it: tagged with every guide).
    load: async ({ params, content }) => {
      const guide = await content.guide(params.slug!)
      if (!guide) return { notFound: true }
      const guides = await content.guideSummaries()
      const index = guides.findIndex((summary) => summary.slug === guide.slug)
      return {
        props: { guide, previous: guides[index - 1] ?? null, next: guides[index + 1] ?? null },
        tags: [contentTags.guides, contentTags.guide(guide.slug)],
      }
    },
    staticParams: async ({ content }) => (await content.guideSummaries()).map((guide) => ({ slug: guide.slug })),
  },
} satisfies LoaderTable<TestPageData>
