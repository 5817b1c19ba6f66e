import { defineRequestLoader } from '../../../client/page.ts'

// A per-user page: who the visitor is comes from their request (their `visitor` cookie, else `x-visitor`).
export const load = defineRequestLoader(({ request }) => {
  const named = request.cookies.visitor ?? request.headers['x-visitor']
  return { props: { visitor: typeof named === 'string' && named !== '' ? named : 'nobody' } }
})
