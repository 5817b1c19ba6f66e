/**
 * The scale suite's real parts, each a plain process on a loopback port of its own, stopped on teardown: redis-server
 * (Debian's `redis-server`, no persistence) and nginx (Debian's `nginx`, with a prefix folder of the test's own).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { writePrefix } from '../../deploy/nginx-prefix.ts'
import { listensOn } from '../../deploy/process-identity.ts'
import { publishAssets } from '../../deploy/shared-assets.ts'
export { freePort } from '../helpers/free-port.ts'
import { onFreePort } from '../helpers/free-port.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` (a log line counted, a state reached) every 25 ms until it holds; fails after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** Waits for `pattern` in the process's output, failing when it exits first or after `timeoutMs`. */
function waitForOutput(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(
      () => done(new Error(`${what}: no ${pattern} within ${timeoutMs} ms:\n${seen}`)),
      timeoutMs,
    )
    function onData(chunk: Buffer) {
      seen += chunk.toString('utf8')
      if (pattern.test(seen)) done()
    }
    // 'close', not 'exit': the output is read to its end (what a program says as it exits is in it).
    function onClose(code: number | null) {
      done(new Error(`${what} exited (${code}) before ${pattern}:\n${seen}`))
    }
    function done(error?: Error) {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      child.off('close', onClose)
      if (error) reject(error)
      else resolve()
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('close', onClose)
  })
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill(signal)
  })
}

export interface RedisProcess {
  url: string
  port: number
  /** Stops redis-server (its data goes with it: no persistence). */
  stop(): Promise<void>
  /** Starts it again on the same port. */
  start(): Promise<void>
}

/** redis-server on a free loopback port (another if that one is taken first), without persistence; stopped on
 * teardown. With `password`, it asks for it (`requirepass`) and the URL carries it (`redis://:password@...`), as the
 * production path sets it up (docs/running-at-scale.md "2. Redis"). */
export async function startRedis(t: Test, options: { password?: string } = {}): Promise<RedisProcess> {
  let child: ChildProcess | undefined
  const auth = options.password === undefined ? [] : ['--requirepass', options.password]
  async function startOn(port: number) {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth]
    child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    await waitForOutput(child, /Ready to accept connections/, 'redis-server')
  }
  async function stop() {
    if (child) await stopChild(child)
  }
  t.teardown(stop)
  const port = await onFreePort(async (candidate) => {
    await startOn(candidate)
    return candidate
  })
  const userInfo = options.password === undefined ? '' : `:${options.password}@`
  return { url: `redis://${userInfo}127.0.0.1:${port}`, port, stop, start: () => startOn(port) }
}

export interface NginxProcess {
  port: number
  prefix: string
  reload(): Promise<void>
  stop(): Promise<void>
  output(): string
}

/**
 * nginx in the foreground (`-g 'daemon off;'`) with `prefix` as its -p folder and `configFile` as its -c file; ready
 * once its master listens on `port`. Stopped (SIGQUIT: graceful) on teardown.
 */
export async function startNginx(t: Test, prefix: string, configFile: string, port: number): Promise<NginxProcess> {
  let output = ''
  const child = spawn('nginx', ['-p', prefix, '-c', configFile, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  // Once its output is read to the end: what nginx says as it exits (a port taken) is in it.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = () => stopChild(child, 'SIGQUIT')
  t.teardown(stop)
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) {
      await closed
      throw new Error(`nginx exited (${child.exitCode}):\n${output}`)
    }
    // Its own socket, not whatever else may answer on the port.
    if (await listensOn(child.pid!, port)) break
    if (Date.now() > deadline) throw new Error(`nginx did not answer on ${port}:\n${output}`)
    await sleep(50)
  }
  return {
    port,
    prefix,
    output: () => output,
    stop,
    async reload() {
      await new Promise<void>((resolve, reject) => {
        const reloader = spawn('nginx', ['-p', prefix, '-c', configFile, '-s', 'reload'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let text = ''
        reloader.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
        reloader.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`nginx -s reload failed (${code}): ${text}`)),
        )
      })
    },
  }
}

/**
 * nginx with deploy/nginx/ in front of `servers` (one deployment, its assets published into the shared folder), in a
 * prefix folder of the test's own removed on teardown: the fleet as docs/running-at-scale.md deploys it.
 */
export async function startNginxInFront(
  t: Test,
  options: { distDir: string; deploymentId: string; servers: readonly number[] },
): Promise<NginxProcess & { origin: string }> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-nginx-'))
  t.teardown(() => rm(prefix, { recursive: true, force: true }))
  await publishAssets(options.distDir, path.join(prefix, 'assets'), options.deploymentId)
  // Another port when nginx finds its own taken in between (its error names `Address already in use`).
  return onFreePort(async (port) => {
    const { configFile } = await writePrefix({
      prefix,
      listen: `127.0.0.1:${port}`,
      deployments: [{ id: options.deploymentId, servers: options.servers.map((one) => `127.0.0.1:${one}`) }],
    })
    const nginx = await startNginx(t, prefix, configFile, port)
    return { ...nginx, origin: `http://127.0.0.1:${port}` }
  })
}
