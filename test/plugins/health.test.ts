import t from 'tap'
import { build } from '../helpers/app.ts'

t.test('GET /api/health answers liveness, uncached', async (t) => {
  const { app } = await build(t)
  const response = await app.inject('/api/health')
  t.equal(response.statusCode, 200)
  t.same(
    response.json(),
    {
      status: 'ok',
      content: { readsInFlight: 0, readsStuck: 0, readTimeouts: 0, index: { ready: false, guides: 0, version: 0 } },
      regenerations: { marked: 0, running: 0, queued: 0, failing: 0, failedTotal: 0 },
    },
    'with how the reads of CONTENT_DIR fare, the index of the guides (built once a page needs it, or on listening) ' +
      'and what the page regenerations are doing',
  )
  await app.inject('/sitemap.xml')
  const { index } = (await app.inject('/api/health')).json().content
  t.ok(index.ready && index.guides > 0 && index.version === 1, 'the index is ready once the sitemap has read it')
  t.equal(response.headers['cache-control'], 'no-store')
})

t.test('other methods on health are not found as JSON', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'DELETE', url: '/api/health' })
  t.equal(response.statusCode, 404)
  t.match(response.headers['content-type'], /application\/json/)
})
