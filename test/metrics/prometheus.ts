/**
 * A real Prometheus (Debian's `prometheus`, /usr/bin/prometheus) as a plain process of the test's own: a temporary
 * config scraping the given targets every second, its storage in a temporary folder, its web API on a free loopback
 * port (another if that one is taken first). Stopped (SIGTERM, then SIGKILL) and its folder removed on teardown.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { onFreePort } from '../helpers/free-port.ts'

export const prometheusBinary = '/usr/bin/prometheus'

/** One series of an instant query's answer (`/api/v1/query`, resultType `vector`). */
export interface VectorSample {
  metric: Record<string, string>
  value: [number, string]
}

export interface PrometheusProcess {
  origin: string
  /** An instant query through the HTTP API; throws unless Prometheus answers `success`. */
  query(promql: string): Promise<VectorSample[]>
  /** Asks `promql` until `accept` takes the answer (every second at most `timeoutMs`); throws with the last answer. */
  waitFor(promql: string, accept: (samples: VectorSample[]) => boolean, timeoutMs?: number): Promise<VectorSample[]>
  stop(): Promise<void>
  output(): string
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Prometheus on `port`: ready once /-/ready is 200; fails when it exits first (its output said whole) or after 60 s. */
function spawnPrometheus(configFile: string, folder: string, port: number) {
  const origin = `http://127.0.0.1:${port}`
  const child = spawn(
    prometheusBinary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(folder, `data-${port}`)}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  // 'close' comes once its output is read to the end, after 'exit'.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))

  async function stop(): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await closed
      clearTimeout(kill)
    }
  }

  async function ready(): Promise<void> {
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) {
        await closed
        throw new Error(`prometheus exited (${child.exitCode}):\n${output}`)
      }
      const answered = await fetch(`${origin}/-/ready`).then(
        (response) => response.status === 200,
        () => false,
      )
      if (answered) return
      if (Date.now() > deadline) throw new Error(`prometheus was not ready within 60 s:\n${output}`)
      await sleep(100)
    }
  }

  return { origin, stop, ready, output: () => output }
}

/** Starts Prometheus scraping `targets` (`host:port`, metrics path /metrics) as job `courier`; ready once /-/ready is 200. */
export async function startPrometheus(t: Test, targets: string[]): Promise<PrometheusProcess> {
  const folder = await mkdtemp(path.join(tmpdir(), 'courier-prometheus-'))
  const configFile = path.join(folder, 'prometheus.yml')
  // scrape_timeout may not exceed the interval; 1 s is far above a loopback scrape.
  await writeFile(
    configFile,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: courier',
      '    static_configs:',
      `      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]`,
      '',
    ].join('\n'),
  )
  const started: Array<{ stop(): Promise<void> }> = []
  t.teardown(async () => {
    for (const one of started) await one.stop()
    await rm(folder, { recursive: true, force: true })
  })
  // Another port when Prometheus finds its own taken in between (it exits saying `address already in use`).
  const { origin, stop, output } = await onFreePort(async (port) => {
    const prometheus = spawnPrometheus(configFile, folder, port)
    started.push(prometheus)
    await prometheus.ready()
    return prometheus
  })

  async function query(promql: string): Promise<VectorSample[]> {
    const response = await fetch(`${origin}/api/v1/query?query=${encodeURIComponent(promql)}`)
    const answer = (await response.json()) as {
      status: string
      data?: { resultType: string; result: VectorSample[] }
      error?: string
    }
    if (answer.status !== 'success' || !answer.data)
      throw new Error(`query ${promql} failed: ${answer.error ?? response.status}`)
    return answer.data.result
  }

  async function waitFor(promql: string, accept: (samples: VectorSample[]) => boolean, timeoutMs = 45_000) {
    const until = Date.now() + timeoutMs
    let last: VectorSample[] = []
    for (;;) {
      last = await query(promql)
      if (accept(last)) return last
      if (Date.now() > until)
        throw new Error(`${promql}: no accepted answer within ${timeoutMs} ms, last ${JSON.stringify(last)}`)
      await sleep(500)
    }
  }

  return { origin, query, waitFor, stop, output }
}

/** The value of a one-series answer, as a number. */
export function single(samples: VectorSample[]): number | undefined {
  return samples.length === 1 ? Number(samples[0]!.value[1]) : undefined
}
