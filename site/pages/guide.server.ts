import { defineAction, defineLoader, type LastModified, type StaticParams } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'
import { siteStore } from '../data/site-store.ts'
import { field } from '../data/form-fields.ts'

export const load = defineLoader(async ({ params, content }) => {
  // This guide's own file (a made-up URL costs one read), then its neighbours for the pager from the index: no other
  // guide's file is read.
  const guide = await content.guide(params.slug!)
  if (!guide) return { notFound: true }
  const { slug, title, summary, sections } = guide
  return {
    props: { guide: { slug, title, summary, sections }, ...(await content.guideNeighbours(slug)) },
    // Its neighbours' titles are in its pager: a change to any guide may change it.
    tags: [contentTags.guides, contentTags.guide(slug)],
  }
})

export const staticParams: StaticParams = async ({ content }) =>
  (await content.guideSummaries()).map((guide) => ({ slug: guide.slug }))

export const lastModified: LastModified = (params, { content }) => content.guideLastModified(params.slug)

/** The most a feedback says. */
const feedbackMaxLength = 2000

// Feedback on this guide from a signed-in reader, kept for them (their account page lists it); anyone else signs in
// first and comes back. The page itself stays kept and shared: the form is the same for every reader.
export const action = defineAction(async ({ params, form, request, content }) => {
  const slug = params.slug!
  const author = await request.session.userId()
  if (author === undefined) return { redirect: { destination: `/sign-in?next=/guides/${encodeURIComponent(slug)}` } }
  if (!(await content.guide(slug))) return { invalid: { error: 'There is no such guide.', body: '' }, status: 400 }
  const body = field(form, 'body')
  if (body === '' || body.length > feedbackMaxLength) {
    return { invalid: { error: `Feedback is 1 to ${feedbackMaxLength} characters.`, body } }
  }
  await siteStore().leaveFeedback(author, slug, body)
  return { redirect: { destination: '/account' } }
})
