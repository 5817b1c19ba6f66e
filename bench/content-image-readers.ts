/**
 * Slow readers of a content image (docs/reliability.md "Slow readers of a content image"): the built server started
 * as `npm start` starts it (its Node flags and variables) with a content folder holding one 10 MB image, then 100
 * clients that ask for it and read 4 KiB a second for 30 s, then leave. Prints the server's resident set (VmRSS)
 * before, at its highest while they read, and 15 s after they left. Needs `npm run build` first; only 127.0.0.1.
 *
 *   npm run bench:content-images
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { imageOptimizer } from '../config/images.ts'
import { readStartCommand } from '../src/build/index.ts'
import { serverEntryFile } from './build-output.ts'
import { residentMiB } from './process-tree.ts'
import { startServer } from './processes.ts'

const readers = 100
const readBytes = 4 * 1024
const readEveryMs = 1_000
const readForMs = 30_000
const afterMs = 15_000
const root = path.resolve(import.meta.dirname, '..')

function slowReader(port: number): Socket {
  const socket = connect({ host: '127.0.0.1', port }, () => {
    socket.write('GET /content/images/big.png HTTP/1.1\r\nHost: localhost\r\n\r\n')
  })
  socket.pause()
  const timer = setInterval(() => socket.read(readBytes), readEveryMs)
  socket.on('close', () => clearInterval(timer))
  socket.on('error', () => clearInterval(timer))
  return socket
}

async function main() {
  const content = await mkdtemp(path.join(tmpdir(), 'courier-bench-content-'))
  for (const folder of ['guides', 'faq', 'images']) await mkdir(path.join(content, folder))
  await writeFile(path.join(content, 'images', 'big.png'), Buffer.alloc(imageOptimizer.maxSourceBytes, 7))
  const start = await readStartCommand(root)
  // Started as the other benches start Courier (bench/processes.ts): a free port, ready once its image answers.
  const server = await startServer({
    name: 'courier',
    args: [...start.nodeArgs, serverEntryFile],
    env: { ...process.env, ...start.env, NODE_ENV: 'production', CONTENT_DIR: content },
    healthPath: '/content/images/big.png',
  })
  try {
    await sleep(2_000)
    const before = residentMiB(server.pid)
    const sockets = Array.from({ length: readers }, () => slowReader(server.port))
    let peak = before
    for (let waited = 0; waited < readForMs; waited += 500) {
      await sleep(500)
      peak = Math.max(peak, residentMiB(server.pid))
    }
    for (const socket of sockets) socket.destroy()
    await sleep(afterMs)
    const after = residentMiB(server.pid)
    const line = (label: string, mib: number) => `${label.padEnd(8)} ${mib.toFixed(0).padStart(5)} MiB`
    console.log(
      `${readers} readers of a ${imageOptimizer.maxSourceBytes / 1024 / 1024} MiB image, ${readBytes} bytes a second each`,
    )
    console.log(line('before', before))
    console.log(line('peak', peak))
    console.log(line('after', after))
  } finally {
    await server.stop()
    await rm(content, { recursive: true, force: true })
  }
}

await main()
