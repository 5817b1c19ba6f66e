import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** Listens on a loopback port for tests that need real sockets (streaming, disconnects, raw paths). */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

export interface Chunk {
  text: string
  at: number
}

/** GET over a real socket, keeping each body chunk as it arrived. */
export function getChunks(
  url: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; chunks: Chunk[] }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const request = http.get(url, (response) => {
      const chunks: Chunk[] = []
      response.setEncoding('utf8')
      response.on('data', (text: string) => chunks.push({ text, at: performance.now() - started }))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, chunks }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.setTimeout(15_000, () => request.destroy(new Error('test request timed out')))
  })
}
