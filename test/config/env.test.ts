import t from 'tap'
import { ConfigError, loadConfig } from '../../config/env.ts'

t.test('defaults', async (t) => {
  const config = loadConfig({})
  t.equal(config.port, 3000)
  t.equal(config.host, '0.0.0.0')
  t.equal(config.logLevel, 'info')
  t.equal(config.trustProxy, false)
  t.equal(config.deploymentId, undefined)
  t.ok(Object.isFrozen(config), 'the config cannot be changed after start-up')
})

t.test('values are coerced from strings', async (t) => {
  const config = loadConfig({ PORT: '8080', TRUST_PROXY: 'true', LOG_LEVEL: 'warn', DEPLOYMENT_ID: 'v1.2_3-a' })
  t.equal(config.port, 8080)
  t.equal(config.trustProxy, true)
  t.equal(config.logLevel, 'warn')
  t.equal(config.deploymentId, 'v1.2_3-a')
})

t.test('a bad value stops start-up with a message naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: 'http' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ TRUST_PROXY: 'perhaps' }, /TRUST_PROXY/],
    [{ DEPLOYMENT_ID: 'has space' }, /DEPLOYMENT_ID/],
    [{ DEPLOYMENT_ID: 'x'.repeat(65) }, /DEPLOYMENT_ID/],
    [{ SITE_URL: 'ftp://example.com' }, /SITE_URL/],
    [{ SITE_URL: 'https://example.com/path' }, /SITE_URL/],
    [{ HOST: '' }, /HOST/],
  ]
  for (const [env, name] of cases) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', message: name }, JSON.stringify(env))
  }
  t.type(new ConfigError('x'), Error)
})
