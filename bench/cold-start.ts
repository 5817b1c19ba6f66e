/**
 * `npm run bench:cold-start`: the cold start of Courier and of its Next.js peer (bench/peers/next), both on the Node
 * this runs on, side by side: COLD_STARTS (default 7) fresh starts of each, alternating, each timed from spawn to its
 * first 200 of `/` (probed every 2 ms), with the CPU time its process tree had used by then (user + system, from
 * /proc) and its peak RSS (VmHWM). Courier starts as `npm start` starts it (package.json's start: its variables, Node's
 * flags and dist/node/server.js), once with its compile cache (dist/node/compile-cache/, written by the starts before:
 * every start after the first) and once with it off (NODE_DISABLE_COMPILE_CACHE=1: the first start of a build); Next as
 * `next start`. COLD_START_PROFILE=<folder> adds `--cpu-prof` to every start and writes the profiles there
 * (docs/runtime.md reads them). Prints a table on stdout; progress on stderr.
 */
import { readFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { projectRoot } from './config.ts'
import { runBench } from './lifecycle.ts'
import { buildPeer, installPeer, peerServerSpec, writePeerSite } from './peer-next.ts'
import { processTree, treePeakRssMiB } from './process-tree.ts'
import { ensureBuild, timeStart, type ServerSpec } from './processes.ts'
import { median, ratio } from './stats.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { loadSite } from '../src/pages/site.ts'

const progress = (message: string) => process.stderr.write(`bench:cold-start: ${message}\n`)

/** Fresh starts per server: odd, so the median is one start; COLD_STARTS overrides (1-31). */
function startCount(): number {
  const raw = process.env.COLD_STARTS ?? '7'
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > 31)
    throw new Error(`COLD_STARTS must be a whole number from 1 to 31, got ${JSON.stringify(raw)}`)
  return value
}

/** Between two probes of `/` while a server starts: short, so the time is not rounded up by the probing. */
const probeIntervalMs = 2

/** CPU time (user + system) of a process tree so far, in ms; the kernel counts in clock ticks of 10 ms. */
function treeCpuMs(root: number): number {
  let ticks = 0
  for (const pid of processTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // Gone between the listing and the read: it counts for nothing.
    }
  }
  return ticks * 10
}

interface Sample {
  ms: number
  cpuMs: number
  peakRssMiB: number | null
}

async function main(): Promise<void> {
  const starts = startCount()
  const profileDir = process.env.COLD_START_PROFILE ? path.resolve(process.env.COLD_START_PROFILE) : undefined
  if (profileDir) await mkdir(profileDir, { recursive: true })
  const profileArgs = (name: string) =>
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : []

  await Promise.all([ensureBuild(), installPeer()])
  const { pages } = await loadSite(false)
  await writePeerSite(pages, await readDeploymentId())
  await buildPeer()

  const start = await readStartCommand(projectRoot)
  const env = { ...process.env, ...start.env, LOG_LEVEL: 'warn', COURIER_DEV: 'false', COURIER_TEST_ROUTES: 'false' }
  const peer = peerServerSpec(process.env, '/')
  const specs: Record<string, ServerSpec> = {
    courier: {
      name: 'courier',
      args: [...profileArgs('courier'), ...start.nodeArgs, serverEntryFile],
      env,
      healthPath: '/',
    },
    'courier, no compile cache': {
      name: 'courier-no-cache',
      args: [...profileArgs('courier-no-cache'), ...start.nodeArgs, serverEntryFile],
      env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
      healthPath: '/',
    },
    next: { ...peer, args: [...profileArgs('next'), ...peer.args] },
  }
  // One start of Courier first, not counted: it writes the compile cache if the build has none yet.
  await (await timeStart({ ...specs.courier!, probeIntervalMs })).server.stop()

  const samples: Record<string, Sample[]> = Object.fromEntries(Object.keys(specs).map((name) => [name, []]))
  for (let round = 1; round <= starts; round += 1) {
    // Alternating order: a slow moment of the machine falls on every server.
    const names = round % 2 === 1 ? Object.keys(specs) : Object.keys(specs).reverse()
    for (const name of names) {
      const { server, ms } = await timeStart({ ...specs[name]!, probeIntervalMs })
      samples[name]!.push({ ms, cpuMs: treeCpuMs(server.pid), peakRssMiB: treePeakRssMiB(server.pid) })
      await server.stop()
      progress(`round ${round} of ${starts}, ${name}: ${ms} ms`)
    }
  }

  const row = (name: string) => {
    const list = samples[name]!
    return {
      ms: median(list.map((one) => one.ms)),
      cpuMs: median(list.map((one) => one.cpuMs)),
      rss: median(list.flatMap((one) => (one.peakRssMiB === null ? [] : [one.peakRssMiB]))),
      all: list.map((one) => Math.round(one.ms)).join(', '),
    }
  }
  const next = row('next')
  const lines = [
    `Cold start on Node ${process.version}: spawn to the first 200 of \`/\`, median of ${starts} fresh starts each, alternating.`,
    '',
    '| server | median ms | ÷ Next | CPU ms (median) | peak RSS MiB (median) | every start (ms) |',
    '|---|---|---|---|---|---|',
    ...Object.keys(specs).map((name) => {
      const one = row(name)
      return `| ${name} | ${one.ms} | ${ratio(one.ms, next.ms) ?? '—'} | ${one.cpuMs} | ${one.rss ?? '—'} | ${one.all} |`
    }),
  ]
  process.stdout.write(lines.join('\n') + '\n')
}

await runBench(main, progress)
