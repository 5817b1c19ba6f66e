/**
 * Metrics are optional: without METRICS_PORT the app registers nothing of them and prom-client is never loaded (this
 * file imports nothing that imports it, so its module cache tells). With METRICS_PORT the same check finds it.
 */
import t from 'tap'
import { createRequire } from 'node:module'
import { build } from '../helpers/app.ts'

const moduleCache = createRequire(import.meta.url).cache

function promClientLoaded(): boolean {
  return Object.keys(moduleCache).some((file) => file.includes(`node_modules/prom-client/`))
}

t.test('without METRICS_PORT: no plugin, no decorator, no prom-client; /metrics is a 404 page', async (t) => {
  const { app } = await build(t)
  t.notOk(app.hasPlugin('courier-metrics'))
  t.equal(app.metrics, undefined)
  t.equal((await app.inject('/metrics')).statusCode, 404)
  t.equal((await app.inject('/')).statusCode, 200)
  t.notOk(promClientLoaded(), 'prom-client was never loaded')
})

t.test('with METRICS_PORT: the plugin is there and prom-client with it', async (t) => {
  const { app } = await build(t, { METRICS_PORT: '0' })
  t.ok(app.hasPlugin('courier-metrics'))
  t.type(app.metrics?.responseFinished, 'function')
  t.ok(promClientLoaded(), 'the check above can see prom-client')
  t.equal((await app.inject('/metrics')).statusCode, 404, 'never on the site port')
})
