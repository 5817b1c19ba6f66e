/**
 * The reliability suite's server: the real Courier process, as `npm start` runs it (Node's flags of package.json's
 * start script on dist/node/server.js, the compiled server; `dist-test/node/server.js` with COURIER_TEST_ROUTES), or a TypeScript
 * entry of the suite's own from its TypeScript source (Node strips the types), on a free loopback port, with an image cache folder of its own. It collects the process's JSON
 * log lines, is ready once /api/health answers, and never outlives its test: closed on teardown (SIGTERM, then
 * SIGKILL), and the preload test/reliability/exit-with-parent.mjs closes it if the test process dies first.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { readStartCommand } from '../../src/build/start-command.ts'
import type { LogLine } from '../helpers/app.ts'
import { fixtureContentDir } from '../helpers/content.ts'
import { until } from '../helpers/until.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
export const projectRoot = path.resolve(here, '..', '..')

/** The production process, exactly as `npm start` runs it: the compiled server of the production build. */
export const serverEntry = path.join(projectRoot, 'dist', 'node', 'server.js')
/** The same, compiled by `npm run build:test`: its server serves the test pages with COURIER_TEST_ROUTES. */
export const testBuildServerEntry = path.join(projectRoot, 'dist-test', 'node', 'server.js')
/** The same app from its TypeScript sources (Node's type stripping) with test-only commands over IPC (forced GC and heap,
 * event-loop saturation). */
export const inspectableEntry = path.join(here, 'inspectable-server.ts')

/** Every wait of the helper, bounded, so a broken server fails the test instead of hanging it. */
export const processTimeouts = Object.freeze({
  /** From spawn to a 200 from /api/health: on a busy 2-core machine (Node loads the inspectable entry's sources one by one). */
  startMs: 60_000,
  /** From SIGTERM to exit before SIGKILL (the server's own grace period is 10 s). */
  stopMs: 15_000,
  /** One IPC command (a saturation asks for its own duration on top). */
  commandMs: 30_000,
})

export interface StartOptions {
  /** Default: the compiled server (the test build's with `COURIER_TEST_ROUTES: 'true'` in `env`). */
  entry?: string
  /** Extra environment (strings, as the process sees them). */
  env?: Record<string, string>
  /** Start node with --expose-gc (needed by the inspectable entry's `heap` command). */
  exposeGc?: boolean
  /** Keep every access line parsed (default true). Long load runs count them only: 100,000s of objects otherwise. */
  keepAccessLines?: boolean
}

export interface AccessCounts {
  /** Every `request completed` line. */
  total: number
  /** Of those, the lines of a response the client abandoned (`aborted: true`). */
  aborted: number
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  origin: string
  port: number
  pid: number
  imageCacheDir: string
  child: ChildProcess
  /** Parsed JSON lines so far: everything but access lines, plus those too when `keepAccessLines`. */
  logs(): LogLine[]
  /**
   * The first line that `matches`, waiting up to `timeoutMs` for it: the process's stdout is read through a pipe, so
   * a line logged before a response can still be on its way when the response has arrived. Undefined if none came.
   */
  logLine(matches: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine | undefined>
  /** Access lines so far, counted without parsing. */
  accessCounts(): AccessCounts
  /** What the process wrote that was not a JSON line (stderr included). */
  otherOutput(): string
  /** Sends an IPC command to the inspectable entry and waits for its answer. */
  command<T>(message: Record<string, unknown>, timeoutMs?: number): Promise<T>
  /** Open file descriptors of the process (/proc/<pid>/fd). */
  openFds(): Promise<number>
  /** Bytes and files in the image cache folder. */
  imageCacheSize(): Promise<{ files: number; bytes: number }>
  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after processTimeouts.stopMs. */
  stop(signal?: NodeJS.Signals): Promise<Exit>
  /** Resolves when the process exits. */
  exited: Promise<Exit>
}

export class ProcessTimeoutError extends Error {
  override name = 'ProcessTimeoutError'
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProcessTimeoutError(`${what} took longer than ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function folderSize(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0
  let bytes = 0
  let entries
  try {
    entries = await readdir(folder, { withFileTypes: true, recursive: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files, bytes }
    throw error
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue
    files += 1
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size
  }
  return { files, bytes }
}

const accessMarker = '"msg":"request completed"'
const listeningPattern = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/

/** Starts the server and resolves once /api/health answers 200; stopped (and its folder removed) on teardown. */
export async function startServer(t: Test, options: StartOptions = {}): Promise<ServerProcess> {
  const { env = {}, exposeGc = false, keepAccessLines = true } = options
  const entry = options.entry ?? (env.COURIER_TEST_ROUTES === 'true' ? testBuildServerEntry : serverEntry)
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-reliability-images-'))
  // Node's flags of `npm start` for the compiled server; a TypeScript entry runs on Node's own type stripping.
  const runWith = entry.endsWith('.ts') ? [] : (await readStartCommand(projectRoot)).nodeArgs
  // The test runner's own preloads (coverage, ts-node) are not the server's: tap puts its loader into every child's
  // NODE_OPTIONS whatever env a spawn is given, so `env -u NODE_OPTIONS` clears it between the two (env execs Node:
  // same pid, same IPC channel).
  const child = spawn(
    'env',
    [
      '-u',
      'NODE_OPTIONS',
      process.execPath,
      ...(exposeGc ? ['--expose-gc'] : []),
      ...runWith,
      '--import',
      path.join(here, 'exit-with-parent.mjs'),
      entry,
    ],
    {
      cwd: projectRoot,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        IMAGE_CACHE_DIR: imageCacheDir,
        // The tests' own content (test/helpers/content.ts) unless the test names a CONTENT_DIR.
        CONTENT_DIR: fixtureContentDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  )
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })

  const lines: LogLine[] = []
  const access: AccessCounts = { total: 0, aborted: 0 }
  let other = ''
  let resolvePort: (port: number) => void
  const portKnown = new Promise<number>((resolve) => (resolvePort = resolve))
  createInterface({ input: child.stdout! }).on('line', function collectLine(text) {
    if (text.includes(accessMarker)) {
      access.total += 1
      if (text.includes('"aborted":true')) access.aborted += 1
      if (!keepAccessLines) return
    }
    let line: LogLine
    try {
      line = JSON.parse(text) as LogLine
    } catch {
      other += `${text}\n`
      return
    }
    lines.push(line)
    const listening = listeningPattern.exec(line.msg)
    if (listening) resolvePort(Number(listening[1]))
  })
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (other += text))

  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let nextId = 1
  child.on('message', function answerCommand(message: { id: number; result?: unknown; error?: string }) {
    const waiter = pending.get(message.id)
    if (!waiter) return
    pending.delete(message.id)
    if (message.error !== undefined) waiter.reject(new Error(message.error))
    else waiter.resolve(message.result)
  })

  async function stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    try {
      return await bounded(exited, processTimeouts.stopMs, `the server's exit after ${signal}`)
    } catch (error) {
      child.kill('SIGKILL')
      await exited
      throw error
    }
  }

  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        await stop()
      } catch {
        // already killed by stop(); the test's own assertions say what went wrong
      }
    }
    await rm(imageCacheDir, { recursive: true, force: true })
  })

  const port = await bounded(
    Promise.race([
      portKnown,
      exited.then((exit) => {
        throw new Error(`the server exited before listening (${JSON.stringify(exit)}):\n${other}`)
      }),
    ]),
    processTimeouts.startMs,
    'the server start',
  )
  const origin = `http://127.0.0.1:${port}`
  await bounded(
    (async () => {
      for (;;) {
        const response = await fetch(`${origin}/api/health`).catch(() => undefined)
        if (response?.status === 200) return
        await sleep(50)
      }
    })(),
    processTimeouts.startMs,
    'the first 200 from /api/health',
  )

  return {
    origin,
    port,
    pid: child.pid!,
    imageCacheDir,
    child,
    logs: () => lines,
    logLine: (matches, timeoutMs = 5_000) =>
      until('a log line', () => lines.find(matches), timeoutMs).catch(() => undefined),
    accessCounts: () => ({ ...access }),
    otherOutput: () => other,
    command<T>(message: Record<string, unknown>, timeoutMs = processTimeouts.commandMs): Promise<T> {
      const id = nextId++
      const answer = new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      })
      child.send({ ...message, id })
      return bounded(answer, timeoutMs, `the command ${String(message.command)}`)
    },
    openFds: async () => (await readdir(`/proc/${child.pid}/fd`)).length,
    imageCacheSize: () => folderSize(imageCacheDir),
    stop,
    exited,
  }
}

/**
 * The origin of the metrics port of a server started with `METRICS_PORT: '0'`: the port the system gave it, from its
 * `metrics endpoint listening` line (no port is picked and freed for it, which another process could take first).
 */
export async function metricsOriginOf(server: ServerProcess): Promise<string> {
  const line = await server.logLine((one) => one.msg === 'metrics endpoint listening', processTimeouts.startMs)
  if (typeof line?.address !== 'string') throw new Error(`no metrics endpoint listening:\n${server.otherOutput()}`)
  return new URL(line.address).origin
}
