/**
 * A CPU for the server, another for the load. On this machine's two CPUs, a server and autocannon left to the
 * scheduler share them with the server's GC helper threads, and where each thread lands moves a run's req/s by more
 * than the difference under test: `/status` from the compiled server served 0.78 of the tsx build's req/s unpinned,
 * and 1.2-1.3x pinned, the same code (docs/benchmarks.md "Compiled server against its sources"). `bench:build` compares two builds of one server,
 * so it gives each the same place: every thread of the server on one CPU, every thread of the bench (autocannon runs
 * in it) on another. Linux's `taskset` (util-linux) does the pinning; without it, or with one CPU, nothing is pinned.
 */
import { spawnSync } from 'node:child_process'

export interface CpuPinning {
  /** The CPU list (taskset's syntax) every server thread runs on. */
  server: string
  /** The CPU list the bench's own process, and so its load, runs on. */
  load: string
}

/** The CPUs of a taskset list (`0,2-3`), in order. */
export function expandCpuList(list: string): number[] {
  return list.split(',').flatMap((range) => {
    const bounds = /^(\d+)(?:-(\d+))?$/.exec(range.trim())
    if (!bounds) return []
    const first = Number(bounds[1])
    const last = bounds[2] === undefined ? first : Number(bounds[2])
    return last < first ? [] : Array.from({ length: last - first + 1 }, (_, index) => first + index)
  })
}

/**
 * The pinning this process allows: its first two CPUs (a container or cgroup may give it others than 0 and 1);
 * undefined with a single CPU or without taskset.
 */
export function cpuPinning(): CpuPinning | undefined {
  const result = spawnSync('taskset', ['--cpu-list', '--pid', String(process.pid)], { encoding: 'utf8' })
  if (result.status !== 0) return undefined
  const cpus = expandCpuList(/:\s*(\S+)\s*$/.exec(result.stdout)?.[1] ?? '')
  if (cpus.length < 2) return undefined
  return { server: String(cpus[0]), load: String(cpus[1]) }
}

export class PinningError extends Error {
  override name = 'PinningError'
}

/** Moves every thread of this process to `cpus`. */
export function pinThisProcess(cpus: string): void {
  const result = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(process.pid)], {
    encoding: 'utf8',
  })
  if (result.status !== 0)
    throw new PinningError(`taskset could not pin the bench to CPU ${cpus}: ${result.stderr.trim()}`)
}

/** The command and arguments that run `command args` with every thread on `cpus`. */
export function pinnedCommand(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus === undefined ? [command, args] : ['taskset', ['--cpu-list', cpus, command, ...args]]
}
