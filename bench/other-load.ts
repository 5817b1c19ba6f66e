/**
 * How much CPU the rest of the machine took while a target was measured: the machine's busy time (/proc/stat) minus
 * what the bench and its servers used (/proc/<pid>/stat, all threads). Load generator and servers share the CPUs, so
 * a test suite or a build running at the same time can halve a number; this says when that happened. Linux only;
 * elsewhere nothing is measured.
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'

/** Linux reports /proc times in USER_HZ ticks, 100 per second on every mainstream build (`getconf CLK_TCK`). */
const ticksPerSecond = 100

export interface CpuSample {
  atMs: number
  machineBusyS: number
  oursS: number
}

function machineBusySeconds(): number {
  // cpu  user nice system idle iowait irq softirq steal ...: everything but idle and iowait is busy.
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields
  return (user + nice + system + irq + softirq + steal) / ticksPerSecond
}

function processSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
  } catch {
    return 0 // the process is gone: it used nothing more
  }
}

export function sampleCpu(ourPids: number[]): CpuSample | undefined {
  if (process.platform !== 'linux') return undefined
  return {
    atMs: performance.now(),
    machineBusyS: machineBusySeconds(),
    oursS: ourPids.reduce((sum, pid) => sum + processSeconds(pid), 0),
  }
}

/** Share of the machine's CPU capacity (0-100 %) used by other processes between two samples. */
export function otherCpuPercent(before: CpuSample | undefined, after: CpuSample | undefined): number | null {
  if (!before || !after) return null
  const capacityS = ((after.atMs - before.atMs) / 1000) * os.availableParallelism()
  const otherS = after.machineBusyS - before.machineBusyS - (after.oursS - before.oursS)
  return capacityS > 0 ? Math.max(0, Math.round((otherS / capacityS) * 1000) / 10) : null
}
