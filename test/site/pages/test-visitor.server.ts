import { defineRequestLoader } from '../../../client/page.ts'

// A per-user page: who the visitor is comes from their request (their session, else their `visitor` cookie, else
// `x-visitor`).
export const load = defineRequestLoader(async ({ request }) => {
  const named = (await request.session.userId()) ?? request.cookies.visitor ?? request.headers['x-visitor']
  return { props: { visitor: typeof named === 'string' && named !== '' ? named : 'nobody' } }
})
