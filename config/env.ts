import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isIP } from 'node:net'
import path from 'node:path'
import { ConfigError, EnvValueError, flag, integer, oneOf, readEnv, secret, text } from './env-variables.ts'

export { ConfigError }
import { contentLayout, revalidation } from './content.ts'
import { sessions } from './sessions.ts'
import { loadTracingConfig, type TracingConfig } from './tracing.ts'

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** Every environment variable Courier reads, with its default. README "Configuration" mirrors this. */
const variables = {
  PORT: integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: text({ default: '0.0.0.0' }),
  /**
   * Listen on this Unix socket instead of HOST:PORT (docs/running-at-scale.md "Instances on Unix sockets"): an absolute
   * path whose folder alone decides who may connect (the socket itself is open to all who reach it).
   */
  SOCKET_PATH: text({
    // sun_path holds 108 bytes with its terminating NUL.
    pattern: { test: /^\/[^\0]+$/, says: 'an absolute path' },
  }),
  LOG_LEVEL: oneOf(logLevels, 'info'),
  /** Build time: the deployment id baked into the client. At run time it must match the build, or start-up stops. */
  DEPLOYMENT_ID: text({ pattern: { test: /^[A-Za-z0-9._-]{1,64}$/, says: '1 to 64 of A-Z a-z 0-9 . _ -' } }),
  /** Honour X-Forwarded-* from a proxy in front, as Fastify's trustProxy takes it: `true`/`false`, a hop count, or a
   * comma-separated list of the proxies' IP addresses and CIDR ranges. Off by default, so clients cannot spoof host,
   * protocol or address. */
  TRUST_PROXY: text({ default: 'false' }),
  /** Send Strict-Transport-Security on every response (the request filter sets it): only behind TLS. */
  HSTS: flag(false),
  /** The public origin, for absolute URLs (sitemap, robots.txt): never taken from the Host header. */
  SITE_URL: text({
    pattern: { test: /^https?:\/\/[^/?#\s]+$/, says: 'an http(s) origin without a path' },
    default: 'http://localhost:3000',
  }),
  /**
   * Where the build lives: `dist` (`npm run build`), or `dist-test` with COURIER_TEST_ROUTES (`npm run build:test`).
   */
  DIST_DIR: text({}),
  /** Serve through Vite's dev server with HMR instead of the build. `npm run dev` sets it. */
  COURIER_DEV: flag(false),
  /**
   * Serve the test build's /__test/* pages (test/site/) that exercise streaming and error paths. Never in production.
   */
  COURIER_TEST_ROUTES: flag(false),
  /** Where the site's content lives (docs/content.md), read at run time: relative paths from the project root. */
  CONTENT_DIR: text({ default: contentLayout.defaultDir }),
  /** The bearer token of POST /api/revalidate (docs/content.md); unset, the route does not exist. */
  REVALIDATE_TOKEN: secret({ minLength: revalidation.minTokenLength, minDistinct: revalidation.minTokenDistinct }),
  /**
   * The secret that signs session cookies (docs/sessions.md). Unset: one made at start, so sessions end when the
   * process does and each instance has its own; a fleet sets one for all.
   */
  SESSION_SECRET: secret({ minLength: sessions.minSecretLength, minDistinct: sessions.minSecretDistinct }),
  /** Where sessions are kept for a fleet: a Redis of their own, persistent and `noeviction` (docs/sessions.md).
   * Unset: in this process's memory. It may carry a password: never shown. */
  SESSION_REDIS_URL: text({
    pattern: { test: /^rediss?:\/\/[^\s]+$/, says: 'a redis:// or rediss:// URL' },
    holdsSecret: true,
  }),
  /**
   * Where the site keeps its own data (an embedded database: docs/your-site.md), relative paths from the project
   * root. A deploy gives it a folder of the state, outside every release, so the data outlives deploys and pruning.
   */
  DATA_DIR: text({ default: 'data' }),
  /** Where the image optimizer caches its output (relative paths from the project root). */
  IMAGE_CACHE_DIR: text({ default: '.image-cache' }),
  /** Let the image optimizer serve SVG sources (as they are, sandboxed by CSP); refused with 400 otherwise. */
  IMAGES_ALLOW_SVG: flag(false),
  /** Worker processes through node:cluster, one per core at most is useful (docs/running-at-scale.md). */
  WEB_CONCURRENCY: integer({ minimum: 1, maximum: 256, default: 1 }),
  /** Shared state for many instances (optimized images, the client-report rate limit). Unset: all in this process.
   * It carries Redis' password (`redis://:PASSWORD@host:port`, docs/running-at-scale.md "2. Redis"): never shown. */
  REDIS_URL: text({
    pattern: { test: /^rediss?:\/\/[^\s]+$/, says: 'a redis:// or rediss:// URL' },
    holdsSecret: true,
  }),
  /**
   * Prometheus metrics on a port of their own (docs/operations.md "Metrics"), never the site's. Unset: no metrics at
   * all.
   */
  METRICS_PORT: integer({ minimum: 0, maximum: 65535 }),
  /** Where the metrics port listens: loopback by default, so only the machine (or a sidecar) can scrape it. */
  METRICS_HOST: text({ default: '127.0.0.1' }),
}

export type LogLevel = (typeof logLevels)[number]

export interface Config {
  readonly port: number
  readonly host: string
  /** SOCKET_PATH: a Unix socket to listen on instead of host and port. */
  readonly socketPath: string | undefined
  readonly logLevel: LogLevel
  /** Set when the operator pinned an id; the server checks it against the build's. */
  readonly deploymentId: string | undefined
  /** What Fastify's trustProxy takes: all proxies, none, a hop count, or the proxies' addresses and ranges. */
  readonly trustProxy: TrustProxy
  readonly hsts: boolean
  /** Public origin without a trailing slash, e.g. `https://courier.example`. */
  readonly siteUrl: string
  /** The project root: index of client/, public files and the build. */
  readonly rootDir: string
  readonly distDir: string
  readonly dev: boolean
  readonly testRoutes: boolean
  /** Absolute folder of the site's content (Markdown guides and FAQ), read by the loaders at run time. */
  readonly contentDir: string
  /** DATA_DIR, absolute: the site's own data, outside the release. */
  readonly dataDir: string
  /** The bearer token of POST /api/revalidate; undefined: no such route. */
  readonly revalidateToken: string | undefined
  /** Absolute folder of the image optimizer's disk cache. */
  readonly imageCacheDir: string
  readonly imagesAllowSvg: boolean
  /** Worker processes (1: the server runs in this process, no cluster). */
  readonly webConcurrency: number
  /** Redis for shared state; undefined when every instance keeps its own. */
  readonly redisUrl: string | undefined
  /** The secret that signs session cookies; undefined: one made at start (docs/sessions.md). */
  readonly sessionSecret: string | undefined
  /** Redis for sessions; undefined: kept in memory. */
  readonly sessionRedisUrl: string | undefined
  /** OpenTelemetry traces (the OTEL_* variables, config/tracing.ts); undefined when off. */
  readonly tracing: TracingConfig | undefined
  /** The Prometheus endpoint's port; undefined: metrics off, nothing of them loaded. */
  readonly metricsPort: number | undefined
  readonly metricsHost: string
}

export type TrustProxy = boolean | number | readonly string[]

/**
 * The nearest folder above `from` with a package.json: the project root, whether this module runs from its source
 * (config/) or compiled into the server's bundle (`<build>/node/`, src/build/server-build.ts).
 */
export function findProjectRoot(from: string): string {
  for (let folder = from; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) return folder
    if (path.dirname(folder) === folder) throw new ConfigError(`no package.json above ${from}: not inside a project`)
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)))

/** The build a server reads unless DIST_DIR names one: the test build holds the test pages, the production one none. */
export function defaultDistDir(testRoutes: boolean): string {
  return testRoutes ? 'dist-test' : 'dist'
}

const hopCount = /^\d{1,3}$/

/** An IPv4 or IPv6 address, optionally with a prefix length in its range (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  if (!/^\d{1,3}$/.test(prefix)) return false
  return Number(prefix) <= (family === 4 ? 32 : 128)
}

/**
 * TRUST_PROXY as Fastify's trustProxy takes it (proxy-addr underneath): `true`/`false`, a hop count (`1`: the closest
 * proxy only), or a comma-separated list of addresses and CIDR ranges. Anything else is a ConfigError naming it.
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim()
  if (text === 'true') return true
  if (text === 'false') return false
  if (hopCount.test(text)) return Number(text)
  const entries = text.split(',').map((entry) => entry.trim())
  const invalid = entries.find((entry) => !isAddressOrRange(entry))
  if (invalid !== undefined) {
    throw new ConfigError(
      'invalid environment: TRUST_PROXY must be true, false, a hop count or a comma-separated list of IP addresses ' +
        `and CIDR ranges (got ${JSON.stringify(invalid)})`,
    )
  }
  return Object.freeze(entries)
}

/**
 * Reads and validates the environment once. A bad value throws a ConfigError whose message names the variable,
 * e.g. `invalid environment: PORT must be an integer from 0 to 65535 (got "70000")`.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  let raw
  try {
    raw = readEnv(variables, env)
  } catch (error) {
    if (error instanceof EnvValueError) throw new ConfigError(`invalid environment: ${error.message}`)
    throw error
  }
  // The site's port answers the public; the metrics port must never be it (port 0 asks the OS for a free one).
  if (raw.METRICS_PORT !== undefined && raw.METRICS_PORT !== 0 && raw.METRICS_PORT === raw.PORT) {
    throw new ConfigError(`invalid environment: METRICS_PORT must differ from PORT (both ${raw.PORT})`)
  }
  // sun_path holds 108 bytes with its terminating NUL: a longer path fails at listen with a less helpful error.
  if (raw.SOCKET_PATH !== undefined && Buffer.byteLength(raw.SOCKET_PATH) > 107) {
    throw new ConfigError(
      `invalid environment: SOCKET_PATH must be at most 107 bytes long (got ${Buffer.byteLength(raw.SOCKET_PATH)})`,
    )
  }
  return Object.freeze({
    port: raw.PORT,
    host: raw.HOST,
    socketPath: raw.SOCKET_PATH,
    logLevel: raw.LOG_LEVEL,
    deploymentId: raw.DEPLOYMENT_ID,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    hsts: raw.HSTS,
    siteUrl: raw.SITE_URL,
    rootDir: projectRoot,
    distDir: path.resolve(projectRoot, raw.DIST_DIR ?? defaultDistDir(raw.COURIER_TEST_ROUTES)),
    dev: raw.COURIER_DEV,
    testRoutes: raw.COURIER_TEST_ROUTES,
    imageCacheDir: path.resolve(projectRoot, raw.IMAGE_CACHE_DIR),
    contentDir: path.resolve(projectRoot, raw.CONTENT_DIR),
    dataDir: path.resolve(projectRoot, raw.DATA_DIR),
    revalidateToken: raw.REVALIDATE_TOKEN,
    imagesAllowSvg: raw.IMAGES_ALLOW_SVG,
    webConcurrency: raw.WEB_CONCURRENCY,
    redisUrl: raw.REDIS_URL,
    sessionSecret: raw.SESSION_SECRET,
    sessionRedisUrl: raw.SESSION_REDIS_URL,
    tracing: loadTracingConfig(env),
    metricsPort: raw.METRICS_PORT,
    metricsHost: raw.METRICS_HOST,
    ...overrides,
  })
}
