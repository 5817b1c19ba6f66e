/**
 * The bench's child processes: the build (when there is none) and the servers under load. Every child is tracked
 * from spawn to exit, so an error, a signal or the bench's own exit takes them all down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { get as httpGet } from 'node:http'
import { createServer } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { hasBuild } from './build-output.ts'
import { pinnedCommand } from './cpu-pinning.ts'
import { benchRoot, distDir, host, keptLogLines, processLimits, projectRoot } from './config.ts'

export class ChildProcessError extends Error {
  override name = 'ChildProcessError'
}

interface Ending {
  /** Ends the child the polite way and resolves once it is gone. */
  stop: () => Promise<void>
  /** Ends it at once (SIGKILL), synchronously. */
  killNow: () => void
}

/** Every child still running, with how to end it. */
const live = new Map<ChildProcess, Ending>()

function track(child: ChildProcess, ending: Ending): void {
  live.set(child, ending)
  child.once('exit', () => live.delete(child))
}

/**
 * Tracks a child the bench started by other means (nginx, bench/nginx-proxy.ts): `stopAll` stops it with the servers,
 * `killAllNow` kills it when the bench exits.
 */
export function trackChild(child: ChildProcess, stop: () => Promise<void>): void {
  track(child, { stop, killNow: () => child.kill('SIGKILL') })
}

/** Stops every child still running (servers gracefully, within their grace period). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live.values()].map((ending) => ending.stop()))
}

/** Last resort when the bench exits and cannot wait (the process 'exit' event): SIGKILL whatever still runs. */
export function killAllNow(): void {
  for (const ending of live.values()) ending.killNow()
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

/**
 * Runs a command to its end in its own process group (npm, its shell and whatever it starts stop together if the bench
 * is interrupted); its output goes to stderr, keeping stdout for the report. Killed after `timeoutMs`.
 */
export async function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number; quiet?: boolean },
): Promise<void> {
  // quiet: the output is kept, and only its last lines are told, in the error, if the command fails.
  const stdio = options.quiet ? (['ignore', 'pipe', 'pipe'] as const) : (['ignore', 2, 2] as const)
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: [...stdio],
    detached: true,
  })
  let captured = ''
  const keep = (chunk: Buffer) => {
    captured = (captured + chunk.toString('utf8')).slice(-4096)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // The group is already gone: nothing left to end.
    }
  }
  const done = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve(code))
  })
  // A half-written build or install is worth nothing: an interrupted one is killed, not waited for.
  async function stopRun() {
    killGroup()
    await done.catch(() => null) // its failure is reported by the await below, not here
  }
  track(child, { stop: stopRun, killNow: killGroup })
  const timer = setTimeout(killGroup, options.timeoutMs)
  try {
    const code = await done
    if (code !== 0) {
      const told = options.quiet
        ? `: ${captured
            .trim()
            .split('\n')
            .filter((line) => /error/i.test(line))
            .slice(0, 4)
            .join(' / ')}`
        : ''
      throw new ChildProcessError(`${command} ${args.join(' ')} failed (exit ${code ?? 'by signal'})${told}`)
    }
  } finally {
    clearTimeout(timer)
  }
}

/** Runs `npm run build` when dist/ lacks a build of the sources checked out (client and compiled server). */
export async function ensureBuild(): Promise<'built' | 'present'> {
  if (await hasBuild()) return 'present'
  process.stderr.write(
    `bench: no fresh build in ${path.relative(projectRoot, distDir) || '.'}, running npm run build\n`,
  )
  await runToEnd('npm', ['run', 'build'], { cwd: projectRoot, timeoutMs: processLimits.buildMs })
  return 'built'
}

/** A port free on the loopback interface right now (the OS picks it; the server binds it a moment later). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, host, () => {
      const address = probe.address()
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port)
        else reject(new ChildProcessError('the OS gave no port'))
      })
    })
  })
}

/** What a server printed, kept for the report: the servers log at warn, so every line is worth reading. */
export interface ServerOutput {
  lines: string[]
  total: number
}

export interface ServerProcess {
  name: string
  pid: number
  origin: string
  port: number
  output: ServerOutput
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  stop(): Promise<void>
}

export interface ServerSpec {
  name: string
  /** Node's arguments after the exit guard: Courier's are `npm start`'s (Node's flags and `dist/node/server.js`),
   * Next's its bin script. */
  args: string[]
  env: NodeJS.ProcessEnv
  /** The server's working directory (default: the project root). */
  cwd?: string
  /** Answers 200 once the server is ready. */
  healthPath: string
  /** Between two probes of the health path (default processLimits.probeIntervalMs). */
  probeIntervalMs?: number
  /** The Node that runs it (default: the one running the bench; BENCH_BASELINE_NODE's comparison names another). */
  execPath?: string
  /** The CPUs every thread of the server runs on (taskset's list, bench/cpu-pinning.ts); default: any. */
  cpus?: string
  /** Told every line the server prints on stdout, as it comes (a bench counting log lines); the kept lines are not. */
  onLine?: (line: string) => void
}

function collectLines(
  stream: NodeJS.ReadableStream | null,
  output: ServerOutput,
  label: string,
  onLine?: (line: string) => void,
): void {
  if (!stream) return
  let pending = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n')
    pending = parts.pop() ?? ''
    for (const line of parts) {
      if (!line.trim()) continue
      onLine?.(line)
      output.total += 1
      if (output.lines.length < keptLogLines) output.lines.push(`${label} ${line}`)
    }
  })
}

/**
 * One GET on a connection of its own (no pool: a kept-alive socket to a server that just stopped on the same port must
 * not answer for the new one), ended by a timer of its own after `timeoutMs` whatever happens. Resolves the status once
 * the whole body has arrived.
 */
export function probe(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false, headers: { connection: 'close' } }, (response) => {
      response.resume()
      response.once('end', () => {
        clearTimeout(timer)
        resolve(response.statusCode ?? 0)
      })
      response.once('error', reject)
    })
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    request.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

async function waitUntilHealthy(child: ChildProcess, spec: ServerSpec, origin: string, output: ServerOutput) {
  const deadline = Date.now() + processLimits.startUpMs
  let lastProblem = 'no answer yet'
  while (Date.now() < deadline) {
    if (exited(child)) {
      throw new ChildProcessError(
        `${spec.name} exited during start-up (code ${child.exitCode ?? child.signalCode}):\n${output.lines.join('\n')}`,
      )
    }
    try {
      const status = await probe(origin + spec.healthPath, processLimits.probeTimeoutMs)
      if (status === 200) return
      lastProblem = `status ${status}`
    } catch (error) {
      lastProblem = (error as Error).message
    }
    await sleep(spec.probeIntervalMs ?? processLimits.probeIntervalMs)
  }
  throw new ChildProcessError(
    `${spec.name} did not answer ${spec.healthPath} with 200 within ${processLimits.startUpMs} ms (${lastProblem})`,
  )
}

/** Starts a server on a free loopback port and resolves once its health path answers 200. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const port = await findFreePort()
  const origin = `http://${host}:${port}`
  const guard = pathToFileURL(path.join(benchRoot, 'exit-with-parent.mjs')).href
  // taskset execs Node in its own place: the child's pid is the server's.
  const [command, args] = pinnedCommand(spec.cpus, spec.execPath ?? process.execPath, ['--import', guard, ...spec.args])
  const child = spawn(command, args, {
    cwd: spec.cwd ?? projectRoot,
    env: { ...spec.env, HOST: host, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  const stop = async () => {
    if (exited(child)) return
    child.kill('SIGTERM')
    if (await waitForExit(child, processLimits.stopGraceMs)) return
    process.stderr.write(`bench: ${spec.name} ignored SIGTERM for ${processLimits.stopGraceMs} ms, killing it\n`)
    child.kill('SIGKILL')
    await waitForExit(child, processLimits.stopGraceMs)
  }
  track(child, { stop, killNow: () => child.kill('SIGKILL') })
  // The channel is only there so the child notices the bench dying; it must not keep the bench alive.
  child.channel?.unref()
  const output: ServerOutput = { lines: [], total: 0 }
  collectLines(child.stdout, output, 'out', spec.onLine)
  collectLines(child.stderr, output, 'err')

  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve)
      child.once('error', reject)
    })
    await waitUntilHealthy(child, spec, origin, output)
  } catch (error) {
    await stop()
    throw error
  }
  return { name: spec.name, pid: child.pid!, origin, port, output, stop }
}

/** Starts the server and times it from spawn to its health path's first 200 (the cold start). */
export async function timeStart(spec: ServerSpec): Promise<{ server: ServerProcess; ms: number }> {
  const started = performance.now()
  const server = await startServer(spec)
  return { server, ms: Number((performance.now() - started).toFixed(1)) }
}
