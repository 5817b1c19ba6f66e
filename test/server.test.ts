import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import http from 'node:http'
import path from 'node:path'
import { loadConfig } from '../config/env.ts'

const root = loadConfig({}).rootDir

/** Starts src/server.ts as `npm start` does (without the build step) and resolves with its port once it listens. */
async function startServer(t: Test, env: Record<string, string>): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'server.ts')], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    child.stdout!.on('data', () => {
      const match = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    child.once('exit', () => reject(new Error(`server exited:\n${output}`)))
  })
  return { child, port, output: () => output }
}

t.test('SIGTERM: the request in flight finishes, then the process exits 0', async (t) => {
  const { child, port, output } = await startServer(t, { COURIER_TEST_ROUTES: 'true' })
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/__test/slow?delay=1000`, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
          // The render is under way: now ask the process to stop.
          if (child.exitCode === null && !child.killed) child.kill('SIGTERM')
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on('error', reject)
  })
  const { status, body } = await response
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(status, 200)
  t.match(body, 'Resolved after', 'the streamed page was completed')
  t.match(body, /<\/html>\s*$/)
  t.equal(code, 0, 'clean exit')
  t.match(output(), '"msg":"closing: finishing in-flight requests"')
})

t.test('a bad environment stops start-up with a message naming the variable', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'server.ts')], {
    cwd: root,
    env: { ...process.env, PORT: 'eighty' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(code, 78)
  t.match(stderr, 'courier: invalid environment: PORT must be integer')
})
