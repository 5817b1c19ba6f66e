/**
 * The harness of the cross-engine journeys (test/e2e/journeys/): the app from the production build, the suite's
 * loopback proxy in front of it, and one engine, named by COURIER_E2E_ENGINE (`chromium`, `firefox`, `webkit`;
 * run.ts sets it). A journey speaks only to the driver layer (engines/types.ts) and to the proxy, so it is written
 * once and runs in all three engines. Everything opened is closed on teardown; every wait is bounded.
 */
import type { Test } from 'tap'
import type { LogLine } from '../helpers/app.ts'
import { bounded, startServer, timeouts } from './harness.ts'
import { isEngineName, launchEngine, type EngineName } from './engines/index.ts'
import { startProxy, type LoopbackProxy, type ProxiedRequest, type Rule, type RuleAnswer } from './engines/proxy.ts'
import type { ConsoleEntry, Engine, PageFunction, Tab } from './engines/types.ts'
import { afterTwoFrames, prefetchIsQuiet } from './prefetch-quiet.ts'

export type { ConsoleEntry, ProxiedRequest }

export function engineFromEnvironment(): EngineName {
  const name = process.env.COURIER_E2E_ENGINE ?? 'chromium'
  if (!isEngineName(name)) throw new Error(`COURIER_E2E_ENGINE=${name}: expected chromium, firefox or webkit`)
  return name
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `check` until it holds; false when it does not within `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms: number = timeouts.actionMs,
): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return true
    await sleep(50)
  }
  return check()
}

export interface JourneySession {
  tab: Tab
  /** What reached the server through the proxy since this session opened, in order. */
  requests(): ProxiedRequest[]
  url(path: string): string
  /** A full load of `path`; the proxy's record of its document request (status, headers). */
  goto(path: string): Promise<ProxiedRequest>
  evaluate<A, R>(fn: PageFunction<A, R>, arg: A): Promise<R>
  /** Polls `fn(arg)` in the page until it is true; false (not a throw) when it is not within `ms`. */
  waitFor<A>(fn: PageFunction<A, boolean>, arg: A, ms?: number): Promise<boolean>
  waitForHydration(): Promise<boolean>
  /** Whether the router reports no prefetch queued or in flight once the frames after the last scroll are drawn
   * (test/e2e/prefetch-quiet.ts): what a "not prefetched" check waits for. */
  prefetchQuiet(): Promise<boolean>
  /** The main heading's text once it reads `text` (false if it does not within a navigation's time). */
  waitForHeading(text: string): Promise<boolean>
  /** Routes matching requests through `answer` (attempt 1, 2, ...) for the rest of the session. */
  route(matches: (pathAndQuery: string) => boolean, answer: (attempt: number) => RuleAnswer): void
  console(): Promise<ConsoleEntry[]>
  /** Console errors, page errors: what a developer would see as red in DevTools. */
  consoleErrors(): Promise<string[]>
}

export interface JourneySuite {
  engine: EngineName
  /** The proxy's origin: the address every engine loads. */
  origin: string
  deploymentId: string
  serverLogs(): LogLine[]
  /** Waits (bounded) for a server log line. */
  serverLogLine(predicate: (line: LogLine) => boolean, ms?: number): Promise<LogLine | undefined>
  open(t: Test): Promise<JourneySession>
  /** The suite's own server, behind the proxy. */
  serverOrigin: string
  /** Sends every later request to another server behind the same origin (a new deployment, docs/compression.md). */
  routeTo(origin: string): void
}

/** The tab a session has open: one at a time (WebKitWebDriver holds one session at a time), closed when replaced. */
interface OpenTab {
  current?: Tab
  versionShown?: boolean
}

function openSession(t: Test, engine: Engine, proxy: LoopbackProxy, open: OpenTab): Promise<JourneySession> {
  return (async () => {
    const closeTab = (tab: Tab) =>
      bounded(tab.close(), 4 * timeouts.closeMs, `closing the ${engine.name} tab`).catch(() => undefined)
    if (open.current) await closeTab(open.current)
    await proxy.reset()
    const tab = await engine.newTab()
    open.current = tab
    if (!open.versionShown) {
      open.versionShown = true
      t.comment(`engine: ${engine.version}`)
    }
    t.teardown(async () => {
      if (open.current !== tab) return
      open.current = undefined
      await closeTab(tab)
    })
    const url = (path: string) => new URL(path, proxy.origin).href

    async function waitFor<A>(fn: PageFunction<A, boolean>, arg: A, ms: number = timeouts.actionMs): Promise<boolean> {
      return eventually(async () => {
        try {
          return (await tab.evaluate(fn, arg)) === true
        } catch {
          // Between two documents a script cannot run: poll again.
          return false
        }
      }, ms)
    }

    const session: JourneySession = {
      tab,
      requests: () => proxy.requests,
      url,
      async goto(path) {
        const target = url(path)
        const before = proxy.requests.length
        await tab.goto(target)
        const document = proxy.requests
          .slice(before)
          .reverse()
          .find((entry) => entry.dest === 'document' && entry.url === target)
        if (!document) throw new Error(`the proxy saw no document request for ${path}`)
        return document
      },
      evaluate: (fn, arg) => tab.evaluate(fn, arg),
      waitFor,
      waitForHydration: () =>
        waitFor(() => document.documentElement.dataset.hydrated === 'true', null, timeouts.hydrationMs),
      async prefetchQuiet() {
        await tab.evaluate(afterTwoFrames, null)
        return waitFor(prefetchIsQuiet, null)
      },
      waitForHeading: (text) =>
        waitFor(
          (expected) => document.querySelector('main h1')?.textContent?.trim() === expected,
          text,
          timeouts.navigationMs,
        ),
      route(matches, answer) {
        const rule: Rule = { matches, answer }
        proxy.route(rule)
      },
      console: () => tab.console(),
      async consoleErrors() {
        const messages = (await tab.console()).filter((entry) => entry.type === 'error').map((entry) => entry.text)
        return [...messages, ...(await tab.pageErrors())]
      },
    }
    return session
  })()
}

/** One server, one proxy and one engine for a journey file, closed when its tests end (engine first). */
export async function startJourneys(t: Test, env: Record<string, string> = {}): Promise<JourneySuite> {
  const name = engineFromEnvironment()
  const server = await startServer(env)
  const proxy = await startProxy(server.origin)
  let engine: Engine
  try {
    engine = await launchEngine(name, { injectIntoDocuments: (source) => proxy.injectIntoDocuments(source) })
  } catch (error) {
    await proxy.close()
    await server.close()
    throw error
  }
  const openTab: OpenTab = {}
  t.teardown(async function closeJourneys() {
    await bounded(engine.close(), timeouts.closeMs, `closing ${name}`)
      .catch(() => undefined)
      .finally(() => proxy.close())
      .finally(() => server.close())
  })
  return {
    engine: name,
    origin: proxy.origin,
    deploymentId: server.deploymentId,
    serverLogs: server.logs,
    async serverLogLine(predicate, ms = timeouts.settleMs) {
      let found: LogLine | undefined
      await eventually(() => (found = server.logs().find(predicate)) !== undefined, ms)
      return found
    },
    open: (test) => openSession(test, engine, proxy, openTab),
    serverOrigin: server.origin,
    routeTo: (origin) => proxy.retarget(origin),
  }
}
