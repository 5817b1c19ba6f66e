import { defineAction, defineRequestLoader } from '../../client/page.ts'
import { siteStore } from '../data/site-store.ts'

// The signed-in reader's page: their name and their feedback. The gate of site/request-filter.ts sends anyone else to
// the sign-in page before this runs; a session ended meanwhile goes there too.
export const load = defineRequestLoader(async ({ request }) => {
  const name = await request.session.userId()
  if (name === undefined) return { redirect: { destination: '/sign-in?next=/account', permanent: false } }
  return { props: { name, feedback: await siteStore().feedbackOf(name) } }
})

/** Signs out: the session ends on the server, so every copy of its cookie names nobody from now on. */
export const action = defineAction(async ({ request }) => {
  await request.session.signOut()
  return { redirect: { destination: '/' } }
})
