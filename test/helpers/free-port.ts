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
