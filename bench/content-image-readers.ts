/**
 * Slow readers of a content image (docs/reliability.md "Slow readers of a content image"): the built server started
 * as `npm start` starts it (its Node flags and variables) with a content folder holding one 10 MB image, then 100
 * clients that ask for it and read 4 KiB a second for 30 s, then leave. Prints the server's resident set (VmRSS)
 * before, at its highest while they read, and 15 s after they left. Needs `npm run build` first; only 127.0.0.1.
 *
 *   npm run bench:content-images
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { imageOptimizer } from '../config/images.ts'
import { readStartCommand } from '../src/build/start-command.ts'

const readers = 100
const readBytes = 4 * 1024
const readEveryMs = 1_000
const readForMs = 30_000
const afterMs = 15_000
const port = 38_000 + (process.pid % 1_000)
const root = path.resolve(import.meta.dirname, '..')

async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024
}

function slowReader(): Socket {
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
  const server = spawn(process.execPath, [...start.nodeArgs, path.join(root, 'dist', 'node', 'server.js')], {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      CONTENT_DIR: content,
    },
    stdio: 'ignore',
  })
  try {
    for (let tries = 0; ; tries++) {
      const up = await fetch(`http://127.0.0.1:${port}/content/images/big.png`, { method: 'HEAD' }).catch(() => null)
      if (up?.ok) break
      if (tries > 100) throw new Error('the server did not start')
      await sleep(200)
    }
    await sleep(2_000)
    const before = await residentMiB(server.pid!)
    const sockets = Array.from({ length: readers }, slowReader)
    let peak = before
    for (let waited = 0; waited < readForMs; waited += 500) {
      await sleep(500)
      peak = Math.max(peak, await residentMiB(server.pid!))
    }
    for (const socket of sockets) socket.destroy()
    await sleep(afterMs)
    const after = await residentMiB(server.pid!)
    const line = (label: string, mib: number) => `${label.padEnd(8)} ${mib.toFixed(0).padStart(5)} MiB`
    console.log(
      `${readers} readers of a ${imageOptimizer.maxSourceBytes / 1024 / 1024} MiB image, ${readBytes} bytes a second each`,
    )
    console.log(line('before', before))
    console.log(line('peak', peak))
    console.log(line('after', after))
  } finally {
    server.kill('SIGTERM')
    await rm(content, { recursive: true, force: true })
  }
}

await main()
