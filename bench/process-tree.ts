/**
 * Peak resident memory of a server: VmHWM (the high-water mark of its RSS, kept by the kernel) of the process and of
 * every descendant, summed: `next start` may run children, and a server's footprint is all of them. Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs'

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces, hence the last ')'): state, then the parent's pid.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return undefined // gone between the listing and the read
  }
}

/** The pid and every live descendant of it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    const parent = parentOf(pid)
    if (parent === undefined) continue
    children.set(parent, [...(children.get(parent) ?? []), pid])
  }
  const tree: number[] = []
  const pending = [root]
  while (pending.length) {
    const pid = pending.pop()!
    tree.push(pid)
    pending.push(...(children.get(pid) ?? []))
  }
  return tree
}

/** VmHWM of one process in KiB, 0 when it is gone or the kernel does not say. */
export function peakRssKiB(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}

/** Summed VmHWM of the server's whole process tree, in MiB; null off Linux. */
export function treePeakRssMiB(root: number): number | null {
  if (process.platform !== 'linux') return null
  const kib = processTree(root).reduce((sum, pid) => sum + peakRssKiB(pid), 0)
  return Number((kib / 1024).toFixed(1))
}

/** VmRSS of one process now, in MiB (what a bench watching a server's memory over time reads). */
export function residentMiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
}
