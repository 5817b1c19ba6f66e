import Fastify from 'fastify'
import t from 'tap'
import { lazySchemaCompilers } from '../src/lazy-schema-compilers.ts'
import { build } from './helpers/app.ts'
import { until } from './helpers/until.ts'

const reportBody = {
  type: 'object',
  required: ['source'],
  additionalProperties: false,
  properties: { source: { type: 'string', enum: ['boundary'] }, count: { type: 'integer' } },
}

function appWith(compilers = lazySchemaCompilers()) {
  const app = Fastify({ schemaController: { compilersFactory: compilers.compilersFactory } })
  app.post('/report', { schema: { body: reportBody } }, async (request) => ({ got: request.body }))
  app.get(
    '/search',
    {
      schema: {
        querystring: { type: 'object', properties: { page: { type: 'integer', default: 1 } } },
        response: { 200: { type: 'object', properties: { page: { type: 'integer' } } } },
      },
    },
    async (request) => ({ page: (request.query as { page: number }).page, secret: 'not in the schema' }),
  )
  return app
}

t.test('validation and serialization answer as Fastify’s own compilers do', async (t) => {
  const lazy = appWith()
  const eager = Fastify()
  eager.post('/report', { schema: { body: reportBody } }, async (request) => ({ got: request.body }))
  t.teardown(() => Promise.all([lazy.close(), eager.close()]))
  const requests = [
    { method: 'POST' as const, url: '/report', payload: { source: 'boundary', count: '3', extra: 'dropped' } },
    { method: 'POST' as const, url: '/report', payload: { source: 'elsewhere' } },
    { method: 'POST' as const, url: '/report', payload: { count: 1 } },
    { method: 'POST' as const, url: '/report', payload: { source: 'boundary', count: 'many' } },
  ]
  for (const request of requests) {
    const [fromLazy, fromEager] = await Promise.all([lazy.inject(request), eager.inject(request)])
    t.equal(fromLazy.statusCode, fromEager.statusCode, JSON.stringify(request.payload))
    t.equal(fromLazy.body, fromEager.body, 'same body: coerced, extra properties removed, the same error message')
  }
  const search = await lazy.inject({ url: '/search?page=2' })
  t.same(search.json(), { page: 2 }, 'the querystring coerced; the response serialized by its schema only')
  t.same((await lazy.inject({ url: '/search' })).json(), { page: 1 }, 'defaults applied')
})

t.test('nothing compiles before the first use; compileRemaining compiles the rest', async (t) => {
  const compilers = lazySchemaCompilers()
  const app = appWith(compilers)
  t.teardown(() => app.close())
  await app.ready()
  // The body of POST /report, the querystring and response of GET /search and of the HEAD route Fastify adds.
  t.equal(compilers.uncompiled(), 5, 'ready: every schema waits')
  const bad = await app.inject({ method: 'POST', url: '/report', payload: { source: 'elsewhere' } })
  t.equal(bad.statusCode, 400, 'compiled on the first request that needs it')
  t.equal(compilers.uncompiled(), 4, 'that one only')
  await compilers.compileRemaining()
  t.equal(compilers.uncompiled(), 0)
  t.equal((await app.inject({ url: '/search?page=3' })).json().page, 3)
})

t.test('a schema that does not compile fails its route (500) and is logged once the server listens', async (t) => {
  const compilers = lazySchemaCompilers()
  const app = Fastify({ schemaController: { compilersFactory: compilers.compilersFactory } })
  app.post(
    '/broken',
    { schema: { body: { type: 'object', properties: { x: { type: 'no-such-type' } } } } },
    async () => 'ok',
  )
  t.teardown(() => app.close())
  await app.ready()
  const response = await app.inject({ method: 'POST', url: '/broken', payload: { x: 1 } })
  t.equal(response.statusCode, 500)
  await t.rejects(compilers.compileRemaining(), /no-such-type|schema is invalid/)
})

t.test('Courier warms its route schemas once it listens, and logs no error doing so', async (t) => {
  const { app, logs } = await build(t, {}, { limits: { schemaWarmUpDelayMs: 50 } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const compiledLine = await until(
    'the warm-up line',
    () => logs().find((line) => line.msg === 'route schemas compiled'),
    5_000,
  ).catch(() => undefined)
  t.ok(compiledLine, 'the warm-up says when it is done')
  t.ok(Number(compiledLine?.schemas) >= 3, `it compiled the schemas no request had needed (${compiledLine?.schemas})`)
  t.same(
    logs().filter((line) => line.level >= 50),
    [],
    'no error line',
  )
  const response = await app.inject({ method: 'POST', url: '/api/client-errors', payload: { source: 'nope' } })
  t.equal(response.statusCode, 400, 'validation still answers')
})
