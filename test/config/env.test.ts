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

t.test('each kind of variable takes only its own spelling, and the message says what it must be', async (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: '0x10' }, 'PORT must be an integer from 0 to 65535 (got "0x10")'],
    [{ PORT: ' 80' }, 'PORT must be an integer from 0 to 65535 (got " 80")'],
    [{ PORT: '1e3' }, 'PORT must be an integer from 0 to 65535 (got "1e3")'],
    [{ WEB_CONCURRENCY: '1.5' }, 'WEB_CONCURRENCY must be an integer from 1 to 256 (got "1.5")'],
    [{ HSTS: 'yes' }, 'HSTS must be true or false (got "yes")'],
    [{ HSTS: '' }, 'HSTS must be true or false (got "")'],
    [{ LOG_LEVEL: 'INFO' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "INFO")'],
    [{ HOST: '' }, 'HOST must be set to something, or unset (got "")'],
    [
      { SITE_URL: 'https://example.com/' },
      'SITE_URL must be an http(s) origin without a path (got "https://example.com/")',
    ],
  ]
  for (const [env, message] of cases) {
    t.throws(
      () => loadConfig(env),
      { name: 'ConfigError', message: `invalid environment: ${message}` },
      JSON.stringify(env),
    )
  }
  const set = loadConfig({ HSTS: 'true', COURIER_TEST_ROUTES: 'false', PORT: '0', IMAGES_ALLOW_SVG: 'true' })
  t.same([set.hsts, set.testRoutes, set.port, set.imagesAllowSvg], [true, false, 0, true])
  t.equal(loadConfig({ PORT: undefined }).port, 3000, 'unset is the default')
})

t.test(
  'TRUST_PROXY takes what Fastify trustProxy takes: a boolean, a hop count, addresses and CIDR ranges',
  async (t) => {
    t.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false)
    t.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1, 'a hop count')
    t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
    t.same(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy, ['127.0.0.1'])
    t.same(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8' }).trustProxy, [
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
    ])
    for (const bad of [
      'perhaps',
      '10.0.0.0/33',
      '10.0.0.0/8,',
      '300.1.1.1',
      'fd00::/129',
      '10.0.0.1/8/9',
      ' ',
      'yes,127.0.0.1',
    ]) {
      t.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        { name: 'ConfigError', message: /TRUST_PROXY/ },
        JSON.stringify(bad),
      )
    }
  },
)

t.test('WEB_CONCURRENCY and REDIS_URL', async (t) => {
  const defaults = loadConfig({})
  t.equal(defaults.webConcurrency, 1, 'one process unless asked')
  t.equal(defaults.redisUrl, undefined, 'no Redis unless asked')
  const set = loadConfig({ WEB_CONCURRENCY: '4', REDIS_URL: 'redis://127.0.0.1:6379/0' })
  t.equal(set.webConcurrency, 4)
  t.equal(set.redisUrl, 'redis://127.0.0.1:6379/0')
  for (const bad of [
    { WEB_CONCURRENCY: '0' },
    { WEB_CONCURRENCY: 'many' },
    { WEB_CONCURRENCY: '1.5' },
    { REDIS_URL: 'localhost:6379' },
    { REDIS_URL: 'http://x' },
  ]) {
    const name = Object.keys(bad)[0]!
    t.throws(() => loadConfig(bad), { name: 'ConfigError', message: new RegExp(name) }, JSON.stringify(bad))
  }
  const withPassword = loadConfig({ REDIS_URL: 'redis://:a-redis-password@127.0.0.1:6379' })
  t.equal(withPassword.redisUrl, 'redis://:a-redis-password@127.0.0.1:6379', 'the password rides in the URL')
  const refused = t.throws(() => loadConfig({ REDIS_URL: 'http://:a-redis-password@127.0.0.1:6379' })) as Error
  t.match(refused.message, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/)
  t.notMatch(refused.message, 'a-redis-password', 'a refused REDIS_URL is not shown: it may carry the password')
})

t.test(
  'METRICS_PORT and METRICS_HOST: off unless a port is given, loopback by default, never the site port',
  async (t) => {
    const defaults = loadConfig({})
    t.equal(defaults.metricsPort, undefined, 'no metrics unless asked')
    t.equal(defaults.metricsHost, '127.0.0.1', 'loopback only by default')
    const set = loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })
    t.equal(set.metricsPort, 9464)
    t.equal(set.metricsHost, '0.0.0.0')
    t.equal(loadConfig({ METRICS_PORT: '0', PORT: '0' }).metricsPort, 0, 'port 0: one the OS picks, like PORT')
    for (const bad of [
      { METRICS_PORT: '70000' },
      { METRICS_PORT: 'on' },
      { METRICS_PORT: '' },
      { METRICS_PORT: '-1' },
      { METRICS_HOST: '' },
    ]) {
      const name = Object.keys(bad)[0]!
      t.throws(() => loadConfig(bad), { name: 'ConfigError', message: new RegExp(name) }, JSON.stringify(bad))
    }
    t.throws(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }), {
      name: 'ConfigError',
      message: /METRICS_PORT must differ from PORT/,
    })
    t.throws(
      () => loadConfig({ METRICS_PORT: '3000' }),
      { name: 'ConfigError', message: /METRICS_PORT/ },
      'PORT defaults to 3000',
    )
  },
)

t.test(
  'REVALIDATE_TOKEN: printable ASCII, at least 32 characters, 8 different; the message names the rule, never the token',
  async (t) => {
    const good = 'k7Hq2mZp9Lx4Vb1Nc8Rt5Ws3Yd6Fg0Ja'
    t.equal(loadConfig({ REVALIDATE_TOKEN: good }).revalidateToken, good)
    const refused = [
      'a'.repeat(64),
      'short-token-0123',
      'ü'.repeat(2) + good,
      `${good.slice(0, 16)} ${good.slice(16)}`,
      'abababababababababababababababababab',
    ]
    for (const token of refused) {
      let message = ''
      try {
        loadConfig({ REVALIDATE_TOKEN: token })
      } catch (error) {
        message = (error as Error).message
      }
      t.match(
        message,
        /REVALIDATE_TOKEN must be printable ASCII without spaces, at least 32 characters of which 8 different/,
        token.slice(0, 8),
      )
      t.notMatch(message, token.slice(0, 12), 'the value is not shown')
    }
  },
)
