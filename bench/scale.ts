/**
 * `npm run bench:scale`: what nginx and more processes cost or give on this machine (docs/running-at-scale.md "Measured on this machine").
 * Static page `/faq` req/s for one instance alone, then behind nginx (deploy/nginx) with 1, 2 and 3 instances; and the
 * dynamic `/status` for WEB_CONCURRENCY=1 and 2. autocannon -c 50, a warm-up, then BENCH_DURATION seconds (default
 * 10) per run, every response checked (status 200 and the end of the document). Loopback only. The load generator
 * runs on the same cores as the servers: the numbers say what this machine does, not what the server would alone.
 */
import autocannon from 'autocannon'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { writePrefix } from '../deploy/nginx-prefix.ts'
import { distDir, load, projectRoot } from './config.ts'
import { listeningPortOf, onFreePort } from '../test/helpers/free-port.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const children: ChildProcess[] = []

async function waitFor(url: string, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (
      (await fetch(url).then(
        (response) => response.status,
        () => 0,
      )) === 200
    )
      return
    await sleep(100)
  }
  throw new Error(`${url} did not answer 200 within ${ms} ms`)
}

/** A Courier process on PORT=0: the port the system gives it, read from its sockets (none picked and freed for it). */
async function startCourier(env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess }> {
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-scale-images-'))
  const child = spawn(process.execPath, [path.join(projectRoot, 'src', 'server.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      IMAGE_CACHE_DIR: imageCacheDir,
      ...env,
    },
    stdio: 'ignore',
  })
  children.push(child)
  const port = await listeningPortOf(child)
  await waitFor(`http://127.0.0.1:${port}/api/ready`)
  return { port, child }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

async function measure(
  url: string,
  name: string,
): Promise<{ name: string; requestsPerSecond: number; p99Ms: number; wrong: number; errors: number }> {
  const check = (status: number, body: string) => status === 200 && body.trimEnd().endsWith('</html>')
  let wrong = 0
  const requests = [
    {
      method: 'GET',
      path: new URL(url).pathname,
      onResponse: (status: number, body: string) => void (check(status, body) || (wrong += 1)),
    },
  ]
  await autocannon({ url, connections: load.connections, duration: load.warmUpS, requests })
  wrong = 0
  const result = await autocannon({ url, connections: load.connections, duration: load.durationS, requests })
  const line = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    wrong,
    errors: result.errors,
  }
  process.stdout.write(`${JSON.stringify(line)}\n`)
  return line
}

/** BENCH_SCALE_RUNS: a comma-separated subset of the runs (alone, nginx1, nginx2, nginx3, wc1, wc2); default all. */
const runs = new Set(
  (process.env.BENCH_SCALE_RUNS ?? 'alone,nginx1,nginx2,nginx3,wc1,wc2').split(',').map((run) => run.trim()),
)

async function main() {
  const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
    deploymentId: string
  }
  const results = []
  const instances = [await startCourier({ TRUST_PROXY: '127.0.0.1' })]
  if (runs.has('alone'))
    results.push(await measure(`http://127.0.0.1:${instances[0]!.port}/faq`, 'instance alone, /faq'))

  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-bench-nginx-'))
  const routing = () => ({
    deployments: [{ id: deploymentId, servers: instances.map((one) => `127.0.0.1:${one.port}`) }],
  })
  const nginx = (...args: string[]) => {
    const result = spawnSync('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), ...args], {
      encoding: 'utf8',
    })
    if (result.status !== 0) throw new Error(`nginx ${args.join(' ')}: ${result.stderr}`)
  }
  // Another port when nginx finds its own taken in between (it says `Address already in use`).
  const nginxPort = await onFreePort(async (port) => {
    await writePrefix({ prefix, listen: `127.0.0.1:${port}`, ...routing() })
    nginx()
    return port
  })
  try {
    await waitFor(`http://127.0.0.1:${nginxPort}/nginx-health`)
    for (let count = 1; count <= 3; count += 1) {
      if (!runs.has(`nginx${count}`)) continue
      while (instances.length < count) instances.push(await startCourier({ TRUST_PROXY: '127.0.0.1' }))
      await writePrefix({ prefix, listen: `127.0.0.1:${nginxPort}`, ...routing() })
      nginx('-s', 'reload')
      await sleep(1000)
      results.push(await measure(`http://127.0.0.1:${nginxPort}/faq`, `nginx + ${count} instance(s), /faq`))
    }
  } finally {
    nginx('-s', 'quit')
    for (const one of instances.splice(0)) await stop(one.child)
    await rm(prefix, { recursive: true, force: true })
  }

  for (const workers of [1, 2]) {
    if (!runs.has(`wc${workers}`)) continue
    const cluster = await startCourier({ WEB_CONCURRENCY: String(workers) })
    await sleep(2000) // every worker listening
    results.push(await measure(`http://127.0.0.1:${cluster.port}/status`, `WEB_CONCURRENCY=${workers}, /status`))
    await stop(cluster.child)
  }
  process.stdout.write(`${JSON.stringify({ results }, null, 2)}\n`)
}

try {
  await main()
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
}
