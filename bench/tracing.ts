/**
 * `npm run bench:tracing`: what tracing costs (docs/benchmarks.md "Tracing cost", goal: req/s with tracing on at 10 % sampling
 * >= 0.9 x off). The compiled server (`npm start`'s command) with tracing off, on with
 * `parentbased_traceidratio` 0.1, and on at 100 % (`parentbased_always_on`), exporting over OTLP/HTTP protobuf to a
 * receiver on a loopback port that takes every batch; the static page `/` (a document kept for the deployment) and the
 * streamed `/status`. autocannon -c 50, a warm-up, then BENCH_DURATION seconds (default 10) per run; BENCH_PASSES
 * passes (default 3), the modes interleaved (their order rotates each pass, a fresh server each run), so the machine's
 * other load falls on every mode alike; the report gives each mode's median and the ratios. Every response is checked
 * (200 and a whole document).
 */
import autocannon from 'autocannon'
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { readStartCommand } from '../src/build/start-command.ts'
import { load, projectRoot } from './config.ts'
import { ensureBuild, startServer, stopAll } from './processes.ts'
import { median, ratio } from './stats.ts'

const modes = {
  off: {},
  'on, 10 %': { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
  'on, 100 %': { OTEL_TRACES_SAMPLER: 'parentbased_always_on' },
} as const
type Mode = keyof typeof modes

const targets = ['/', '/status'] as const

/**
 * A collector that takes everything, in a process of its own (in the bench's, it would slow autocannon down each
 * time spans arrive): answers every batch 200 at once and reports how many batches and bytes it took when stopped.
 */
const sinkScript = `
let batches = 0, bytes = 0
const server = require('node:http').createServer((request, response) => {
  request.on('data', (chunk) => (bytes += chunk.length))
  request.on('end', () => { batches += 1; response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'))
process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ batches, bytes }) + '\\n'); process.exit(0) })
`

async function startSink() {
  const child = spawn(process.execPath, ['-e', sinkScript], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const { port } = JSON.parse(String((await lines.next()).value)) as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop(): Promise<{ batches: number; bytes: number }> {
      child.kill('SIGTERM')
      return JSON.parse(String((await lines.next()).value)) as { batches: number; bytes: number }
    },
  }
}

/** CPU time the process has used so far (user + system, every thread), in ms: /proc/<pid>/stat, 100 ticks a second. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

async function measure(
  origin: string,
  target: string,
  pid: number,
): Promise<{ requestsPerSecond: number; p99Ms: number; cpuUsPerRequest: number; wrong: number }> {
  let wrong = 0
  const requests = [
    {
      method: 'GET',
      path: target,
      onResponse: (status: number, body: string) =>
        void (status === 200 && body.trimEnd().endsWith('</html>') ? 0 : (wrong += 1)),
    },
  ]
  await autocannon({ url: origin, connections: load.connections, duration: load.warmUpS, requests })
  wrong = 0
  const cpuBefore = await cpuMs(pid)
  const result = await autocannon({
    url: origin,
    connections: load.connections,
    duration: load.durationS,
    timeout: load.timeoutS,
    requests,
  })
  // The server's CPU per response: steadier than req/s on a machine whose other load comes and goes.
  const cpuUsPerRequest = Math.round((((await cpuMs(pid)) - cpuBefore) * 1000) / Math.max(1, result.requests.total))
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    cpuUsPerRequest,
    wrong: wrong + result.errors + result.non2xx,
  }
}

async function main() {
  await ensureBuild()
  const command = await readStartCommand(projectRoot)
  const sink = await startSink()
  const names = Object.keys(modes) as Mode[]
  const runs: Array<{
    pass: number
    mode: Mode
    target: string
    requestsPerSecond: number
    p99Ms: number
    cpuUsPerRequest: number
    wrong: number
  }> = []
  try {
    for (let pass = 1; pass <= load.passes; pass++) {
      // Rotate the order: off first in one pass, last in another.
      const order = names.map((_name, index) => names[(index + pass - 1) % names.length]!)
      for (const mode of order) {
        const tracing = mode === 'off' ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, ...modes[mode] }
        const server = await startServer({
          name: `courier (${mode})`,
          args: [...command.nodeArgs, command.entry],
          env: { ...process.env, ...command.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...tracing },
          healthPath: '/api/ready',
        })
        try {
          for (const target of targets) {
            const result = await measure(server.origin, target, server.pid)
            runs.push({ pass, mode, target, ...result })
            process.stdout.write(`${JSON.stringify({ pass, mode, target, ...result })}\n`)
          }
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    await stopAll()
  }
  const exported = await sink.stop()

  const rows = targets.map((target) => {
    const of = (mode: Mode) => runs.filter((run) => run.mode === mode && run.target === target)
    const rps = (mode: Mode) => median(of(mode).map((run) => run.requestsPerSecond))
    const cpu = (mode: Mode) => median(of(mode).map((run) => run.cpuUsPerRequest))
    const off = rps('off')
    const tenth = rps('on, 10 %')
    const all = rps('on, 100 %')
    return {
      target,
      off,
      tenth,
      all,
      tenthRatio: ratio(tenth, off),
      allRatio: ratio(all, off),
      cpu: [cpu('off'), cpu('on, 10 %'), cpu('on, 100 %')],
    }
  })
  process.stdout.write(
    `\n| page | off req/s | on, 10 % req/s (÷ off) | on, 100 % req/s (÷ off) | server CPU µs per response: off, 10 %, 100 % |\n|---|---:|---:|---:|---:|\n`,
  )
  for (const row of rows) {
    process.stdout.write(
      `| \`${row.target}\` | ${row.off} | ${row.tenth} (${row.tenthRatio}) | ${row.all} (${row.allRatio}) | ${row.cpu.join(', ')} |\n`,
    )
  }
  const wrong = runs.reduce((total, run) => total + run.wrong, 0)
  const goalMet = rows.every((row) => row.tenthRatio !== null && row.tenthRatio >= 0.9)
  process.stdout.write(
    `\nwrong responses: ${wrong}; spans exported: ${exported.batches} batches, ${exported.bytes} bytes\n`,
  )
  process.stdout.write(
    `goal 10 % / off >= 0.9: ${goalMet ? 'met' : 'not met'} (${load.passes} passes of ${load.durationS} s, ${path.relative(projectRoot, command.entry)})\n`,
  )
  if (wrong > 0) process.exitCode = 1
}

await main()
