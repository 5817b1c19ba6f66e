import { createServer } from 'node:net'

/**
 * A free loopback port now (the OS picks one; it is closed again for the caller to listen on): another process may
 * take it in between. Courier's own processes listen on port 0 and say which port they got instead (the deploy's
 * instances, test/reliability/server-process.ts); this is for programs that must be told a port (nginx, Redis).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** What a program says when the port it was told is taken (Node, nginx, redis-server). */
const portTaken = /EADDRINUSE|Address already in use/

/**
 * Starts a program on a free port, and on a new one when the port was taken in between (its error says
 * `Address already in use`): at most `attempts` times.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(await freePort())
    } catch (error) {
      if (attempt >= attempts || !(error instanceof Error) || !portTaken.test(error.message)) throw error
    }
  }
}
