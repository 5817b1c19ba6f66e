/**
 * A CPU for the server, another for the load. On this machine's two CPUs, a server and autocannon left to the
 * scheduler share them with the server's GC helper threads, and where each thread lands moves a run's req/s by more
 * than the difference under test: `/status` from the compiled server served 0.78 of the tsx build's req/s unpinned,
 * and 1.2-1.3x pinned, the same code (README "Production build"). `bench:build` compares two builds of one server,
 * so it gives each the same place: every thread of the server on one CPU, every thread of the bench (autocannon runs
 * in it) on another. Linux's `taskset` (util-linux) does the pinning; without it, or with one CPU, nothing is pinned.
 */
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

export interface CpuPinning {
  /** The CPU list (taskset's syntax) every server thread runs on. */
  server: string
  /** The CPU list the bench's own process, and so its load, runs on. */
  load: string
}

/** The pinning this machine allows: undefined with a single CPU or without taskset. */
export function cpuPinning(): CpuPinning | undefined {
  if (availableParallelism() < 2) return undefined
  if (spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status !== 0) return undefined
  return { server: '0', load: '1' }
}

export class PinningError extends Error {
  override name = 'PinningError'
}

/** Moves every thread of this process to `cpus`. */
export function pinThisProcess(cpus: string): void {
  const result = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(process.pid)], { encoding: 'utf8' })
  if (result.status !== 0) throw new PinningError(`taskset could not pin the bench to CPU ${cpus}: ${result.stderr.trim()}`)
}

/** The command and arguments that run `command args` with every thread on `cpus`. */
export function pinnedCommand(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus === undefined ? [command, args] : ['taskset', ['--cpu-list', cpus, command, ...args]]
}
