import type { ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { listeningPorts } from '../../deploy/process-identity.ts'

function listenOnAny(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve(server))
  })
}

/**
 * `count` distinct free loopback ports now (the OS picks them; they are closed again for the caller to hand on):
 * another process may take one in between, so a program told one is started through `onFreePorts`. Courier's own
 * processes listen on port 0 and say which port they got instead (`listeningPortOf`, test/reliability/server-process.ts).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = []
  try {
    for (let index = 0; index < count; index += 1) servers.push(await listenOnAny())
    return servers.map((server) => {
      const address = server.address()
      if (!address || typeof address !== 'object') throw new Error('no port')
      return address.port
    })
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  }
}

/** One free loopback port now: see `freePorts`. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!
}

/**
 * What a program says when a port it was told is taken: Node (`EADDRINUSE`), nginx and redis-server (`Address already
 * in use`), Prometheus and pebble (Go's `bind: address already in use`), WebKitWebDriver (`Unable to listen for HTTP
 * server`).
 */
export const portTaken = /EADDRINUSE|address already in use|Unable to listen for HTTP server/i

/**
 * Starts a program on `count` free ports, and on new ones when one was taken in between (the start's error says so,
 * `portTaken`): at most `attempts` times. A taken port costs a retry, not a failed test.
 */
export async function onFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await freePorts(count))
    } catch (error) {
      if (attempt >= attempts || !(error instanceof Error) || !portTaken.test(error.message)) throw error
    }
  }
}

/** `onFreePorts` for a program told one port. */
export function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  return onFreePorts(1, ([port]) => start(port!), attempts)
}

/**
 * The port a Courier process started with PORT=0 (and no METRICS_PORT) listens on, as soon as it does: its sockets
 * in /proc, whatever its log level says. Fails when it exits first or after `timeoutMs`.
 */
export async function listeningPortOf(child: ChildProcess, timeoutMs = 90_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`pid ${child.pid} exited before it listened`)
    const [port] = await listeningPorts(child.pid!)
    if (port !== undefined) return port
    if (Date.now() > deadline) throw new Error(`pid ${child.pid} did not listen within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
