/**
 * The bench's child processes: the build (when there is none) and the servers under load. Every child is tracked
 * from spawn to exit, so an error, a signal or the bench's own exit takes them all down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { hasBuild } from './build-output.ts'
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

/** Runs `npm run build` when dist/ lacks a build; its output goes to stderr, keeping stdout for the report. */
export async function ensureBuild(): Promise<'built' | 'present'> {
  if (await hasBuild()) return 'present'
  process.stderr.write(`bench: no build in ${path.relative(projectRoot, distDir) || '.'}, running npm run build\n`)
  // Its own process group, so npm, its shell and vite all stop together if the bench is interrupted.
  const child = spawn('npm', ['run', 'build'], { cwd: projectRoot, stdio: ['ignore', 2, 2], detached: true })
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
  // A half-written build is worth nothing: an interrupted build is killed, not waited for.
  async function stopBuild() {
    killGroup()
    await done.catch(() => null) // its failure is reported by the await below, not here
  }
  track(child, { stop: stopBuild, killNow: killGroup })
  const timer = setTimeout(killGroup, processLimits.buildMs)
  try {
    const code = await done
    if (code !== 0) throw new ChildProcessError(`npm run build failed (exit ${code ?? 'by signal'})`)
  } finally {
    clearTimeout(timer)
  }
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
  output: ServerOutput
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  stop(): Promise<void>
}

export interface ServerSpec {
  name: string
  /** The script and its arguments, run with `node --import tsx`. */
  args: string[]
  env: NodeJS.ProcessEnv
  /** Answers 200 once the server is ready. */
  healthPath: string
}

function collectLines(stream: NodeJS.ReadableStream | null, output: ServerOutput, label: string): void {
  if (!stream) return
  let pending = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n')
    pending = parts.pop() ?? ''
    for (const line of parts) {
      if (!line.trim()) continue
      output.total += 1
      if (output.lines.length < keptLogLines) output.lines.push(`${label} ${line}`)
    }
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
      const response = await fetch(origin + spec.healthPath, { signal: AbortSignal.timeout(2_000) })
      await response.arrayBuffer()
      if (response.status === 200) return
      lastProblem = `status ${response.status}`
    } catch (error) {
      lastProblem = (error as Error).message
    }
    await sleep(processLimits.probeIntervalMs)
  }
  throw new ChildProcessError(
    `${spec.name} did not answer ${spec.healthPath} with 200 within ${processLimits.startUpMs} ms (${lastProblem})`,
  )
}

/** Starts a server on a free loopback port and resolves once its health path answers 200. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const port = await findFreePort()
  const origin = `http://${host}:${port}`
  const guard = path.join(benchRoot, 'exit-with-parent.ts')
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', guard, ...spec.args], {
    cwd: projectRoot,
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
  collectLines(child.stdout, output, 'out')
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
  return { name: spec.name, pid: child.pid!, origin, output, stop }
}
