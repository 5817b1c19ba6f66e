/**
 * The browser suite's harness: the app from the production build on an ephemeral port, Debian's Chromium through
 * playwright-core, and a fresh browser context per test that records what a developer would look at in DevTools
 * (console, uncaught errors, every request). Everything it opens is closed on teardown, every wait is bounded.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page, type Request, type Response } from 'playwright-core'
import type { Test } from 'tap'
import type { LogLine } from '../helpers/app.ts'
import { afterTwoFrames, prefetchIsQuiet } from './prefetch-quiet.ts'

/** Debian's package; nothing in this suite downloads a browser. */
export const chromiumPath = '/usr/bin/chromium'

/** Every wait of the suite, bounded, so a broken page fails a test instead of hanging it. */
export const timeouts = Object.freeze({
  /** Cold start of Chromium on a busy CI machine. */
  launchMs: 30_000,
  /** One page load, up to the `load` event. */
  navigationMs: 15_000,
  /** A click, a fill, a query of the DOM. */
  actionMs: 5_000,
  /** From `load` to `<html data-hydrated="true">`: the page chunk is fetched first. */
  hydrationMs: 10_000,
  /** From hydration to a quiet network (no request for 500 ms) and settled fonts. */
  settleMs: 5_000,
  /** Closing the browser, a context or the server. */
  closeMs: 5_000,
})

/**
 * The arguments the brief fixes, plus one: every host name but the test server's resolves to nothing, so a request
 * to another host fails at once (and is still recorded) instead of reaching the network or waiting for it.
 */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
]

export class TimeoutError extends Error {
  override name = 'TimeoutError'
}

/** `promise`, or a TimeoutError naming `what` after `ms`. */
export async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export interface ConsoleEntry {
  /** `log`, `warning`, `error`, ... as Chromium reports it. */
  type: string
  text: string
  /** The resource the message is about or comes from (for a failed load: that resource's URL). */
  url: string
}

export interface RequestEntry {
  url: string
  method: string
  /** Chromium's resource type: `document`, `script`, `stylesheet`, `font`, `fetch`, `image`, ... */
  resourceType: string
  /** Set once the response arrived. */
  status?: number
  /** Set when the request failed (refused, aborted, unresolvable host). */
  failure?: string
}

export interface Recording {
  console: ConsoleEntry[]
  /** Uncaught exceptions and unhandled rejections in the page, with their stack. */
  pageErrors: string[]
  /** Every request the context made, in order. */
  requests: RequestEntry[]
}

export interface Session {
  context: BrowserContext
  page: Page
  recording: Recording
  /** Absolute URL of a path on the test server. */
  url(path: string): string
  /** Loads `path` up to the `load` event; the main document's response. */
  goto(path: string): Promise<Response>
  /** Whether `<html data-hydrated="true">` appeared in time (false rather than throwing: tests assert it). */
  waitForHydration(): Promise<boolean>
  /** Whether the router reports no prefetch queued or in flight once the frames after the last scroll are drawn
   * (test/e2e/prefetch-quiet.ts): what a "not prefetched" check waits for. */
  prefetchQuiet(): Promise<boolean>
  /** Hydrated, fonts settled, no request for 500 ms and every request answered: the recording is complete for this page. */
  settle(): Promise<void>
}

export interface Suite {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** The build's deployment id, as the server knows it. */
  deploymentId: string
  /** The server's log lines so far, parsed. */
  serverLogs(): LogLine[]
  /** A fresh browser context and page for test `t`, closed on its teardown. */
  open(t: Test): Promise<Session>
}

export interface RunningServer {
  origin: string
  deploymentId: string
  logs(): LogLine[]
  close(): Promise<void>
}

/**
 * The app over the production build, listening on 127.0.0.1 on a free port, logging into memory. NODE_ENV is set
 * before the app is imported: React picks its production or development build when it is first loaded.
 */
export async function startServer(
  env: Record<string, string>,
  options: { rootDir?: string } = {},
): Promise<RunningServer> {
  process.env.NODE_ENV = 'production'
  const [{ loadConfig }, { buildApp }, { loggerOptions }, { captureLogs }, { fixtureContentDir }, { pino }] =
    await Promise.all([
      import('../../config/env.ts'),
      import('../../src/app.ts'),
      import('../../src/logger.ts'),
      import('../helpers/app.ts'),
      import('../helpers/content.ts'),
      import('pino'),
    ])
  // Each suite starts with an empty image cache of its own: no entry of an earlier run (or of the project's own
  // .image-cache) decides what a test sees, and nothing is left behind.
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-e2e-images-'))
  const removeImageCache = () => rm(imageCacheDir, { recursive: true, force: true })
  // Only what the suite needs: an operator's DEPLOYMENT_ID or TRUST_PROXY must not change what is tested.
  let config = loadConfig({
    LOG_LEVEL: 'info',
    // The production build, or with COURIER_TEST_ROUTES the test build (config/env.ts), unless DIST_DIR names one.
    ...(process.env.DIST_DIR ? { DIST_DIR: process.env.DIST_DIR } : {}),
    IMAGE_CACHE_DIR: imageCacheDir,
    // The tests' own content (test/helpers/content.ts) unless the suite names a CONTENT_DIR: never the example's.
    CONTENT_DIR: fixtureContentDir,
    ...env,
  })
  // Another copy of the project (a second deployment's source): @fastify/vite finds its client build from there.
  if (options.rootDir) config = { ...config, rootDir: options.rootDir }
  const { stream, lines } = captureLogs()
  const app = await buildApp(config, { logger: pino(loggerOptions(config.logLevel), stream) })
  try {
    await bounded(app.listen({ host: '127.0.0.1', port: 0 }), timeouts.navigationMs, 'starting the server')
  } catch (error) {
    await app.close()
    await removeImageCache()
    throw error
  }
  const { port } = app.server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    deploymentId: app.deploymentId,
    logs: lines,
    close: () => bounded(app.close(), timeouts.closeMs, 'closing the server').then(removeImageCache),
  }
}

async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium package`)
  return chromium.launch({
    executablePath: chromiumPath,
    args: chromiumArgs,
    timeout: timeouts.launchMs,
  })
}

/** Listens on the context (every request of every page) and its page (console, uncaught errors, crash). */
function record(context: BrowserContext, page: Page): Recording {
  const recording: Recording = { console: [], pageErrors: [], requests: [] }
  const entries = new Map<Request, RequestEntry>()
  context.on('request', function recordRequest(request) {
    const entry: RequestEntry = { url: request.url(), method: request.method(), resourceType: request.resourceType() }
    entries.set(request, entry)
    recording.requests.push(entry)
  })
  context.on('response', function recordResponse(response) {
    const entry = entries.get(response.request())
    if (entry) entry.status = response.status()
  })
  // A request can finish without a `response` event reaching the context (Chromium's idle-time prefetches under
  // load): its answer is read from the request once it has finished.
  context.on('requestfinished', function recordFinished(request) {
    const entry = entries.get(request)
    if (!entry || entry.status !== undefined) return
    request.response().then(
      (response) => void (entry.status ??= response?.status()),
      () => undefined,
    )
  })
  context.on('requestfailed', function recordFailure(request) {
    const entry = entries.get(request)
    if (entry) entry.failure = request.failure()?.errorText ?? 'failed'
  })
  page.on('console', function recordConsole(message) {
    recording.console.push({ type: message.type(), text: message.text(), url: message.location().url })
  })
  page.on('pageerror', function recordPageError(error) {
    recording.pageErrors.push(error.stack ?? `${error.name}: ${error.message}`)
  })
  page.on('crash', function recordCrash() {
    recording.pageErrors.push('the page crashed')
  })
  return recording
}

async function openSession(t: Test, browser: Browser, origin: string): Promise<Session> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  t.teardown(() => bounded(context.close(), timeouts.closeMs, 'closing the browser context'))
  context.setDefaultTimeout(timeouts.actionMs)
  context.setDefaultNavigationTimeout(timeouts.navigationMs)
  const page = await context.newPage()
  const recording = record(context, page)
  const url = (path: string) => new URL(path, origin).href

  async function waitForHydration(): Promise<boolean> {
    try {
      await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, {
        timeout: timeouts.hydrationMs,
      })
      return true
    } catch {
      // The caller asserts on the boolean; the recording (console, page errors) says why.
      return false
    }
  }

  return {
    context,
    page,
    recording,
    url,
    async goto(path) {
      const response = await page.goto(url(path), { waitUntil: 'load' })
      if (!response) throw new Error(`no response for ${path}`)
      return response
    },
    waitForHydration,
    async prefetchQuiet() {
      await page.evaluate(afterTwoFrames)
      try {
        await page.waitForFunction(prefetchIsQuiet, undefined, { timeout: timeouts.actionMs })
        return true
      } catch {
        return false
      }
    },
    async settle() {
      if (!(await waitForHydration()))
        throw new Error(`${page.url()} did not hydrate within ${timeouts.hydrationMs} ms`)
      await bounded(
        page.evaluate(() => document.fonts.ready.then(() => undefined), undefined),
        timeouts.settleMs,
        `fonts of ${page.url()} settling`,
      )
      await page.waitForLoadState('networkidle', { timeout: timeouts.settleMs })
      // Prefetches start at idle time after hydration, and can still be on the wire once the network has been quiet
      // for networkidle's 500 ms: wait until every request recorded so far has its answer or its failure.
      const deadline = Date.now() + timeouts.settleMs
      while (recording.requests.some((request) => request.status === undefined && request.failure === undefined)) {
        if (Date.now() > deadline) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await answerFromResourceTiming(page, recording)
    },
  }
}

/**
 * Under load, Chromium can load a dynamically imported chunk without the context ever seeing its response or its end.
 * The page's own Resource Timing entry still records the answer's status (`responseStatus`): a request still
 * unanswered is given that status, and one with no entry stays pending for the test's assertions to name.
 */
async function answerFromResourceTiming(page: Page, recording: Recording): Promise<void> {
  const pending = recording.requests.filter((request) => request.status === undefined && request.failure === undefined)
  if (pending.length === 0) return
  const statuses = new Map(
    await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((entry) => [entry.name, (entry as PerformanceResourceTiming).responseStatus] as [string, number]),
    ),
  )
  for (const request of pending) {
    const status = statuses.get(request.url)
    if (status) request.status = status
  }
}

/**
 * One server and one browser for a test file, closed when the file's tests end (browser first, so its keep-alive
 * connections are gone before the server closes). `env`: extra environment for the server, e.g. COURIER_TEST_ROUTES.
 */
export async function startSuite(t: Test, env: Record<string, string> = {}): Promise<Suite> {
  const server = await startServer(env)
  let browser: Browser
  try {
    browser = await launchBrowser()
  } catch (error) {
    await server.close()
    throw error
  }
  t.teardown(async function closeSuite() {
    await bounded(browser.close(), timeouts.closeMs, 'closing Chromium').finally(() => server.close())
  })
  return {
    origin: server.origin,
    deploymentId: server.deploymentId,
    serverLogs: server.logs,
    open: (test) => openSession(test, browser, server.origin),
  }
}

/** What Chromium logs when a document or subresource answers 404. */
export const resource404Message = 'Failed to load resource: the server responded with a status of 404 (Not Found)'

/**
 * Console errors nobody should see. On a 404 page Chromium reports the document's own 404 as a console error: pass
 * `allowDocument404` (the document's URL) to drop that one message, and only it.
 */
export function unexpectedConsoleErrors(
  recording: Recording,
  options: { allowDocument404?: string } = {},
): ConsoleEntry[] {
  let allowance = options.allowDocument404 ? 1 : 0
  return recording.console.filter((entry) => {
    if (entry.type !== 'error') return false
    if (allowance > 0 && entry.text === resource404Message && entry.url === options.allowDocument404) {
      allowance -= 1
      return false
    }
    return true
  })
}
