import { defineLoader, type LastModified, type StaticParams } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'

/** A listing page's number from its URL segment: 2 and up, in digits (`/guides` is page 1). */
function listingPageNumber(segment: string | undefined): number | undefined {
  return segment !== undefined && /^[1-9]\d{0,6}$/.test(segment) && segment !== '1' ? Number(segment) : undefined
}

// `/guides/page/<n>`: two segments, so no guide's slug (one segment, `/guides/<slug>`) is ever taken for it.
export const load = defineLoader(async ({ params, content }) => {
  const page = listingPageNumber(params.page)
  const list = page === undefined ? undefined : await content.guideListPage(page)
  return list ? { props: list, tags: [contentTags.guides] } : { notFound: true }
})

export const staticParams: StaticParams = async ({ content }) => {
  const { pages } = (await content.guideListPage(1))!
  return Array.from({ length: pages - 1 }, (_unused, index) => ({ page: String(index + 2) }))
}

export const lastModified: LastModified = (_params, { content }) => content.guideLastModified()
