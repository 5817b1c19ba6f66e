import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import type { Test } from 'tap'
import { loadConfig } from '../../config/env.ts'

const root = loadConfig({}).rootDir

export interface ServerProcess {
  child: ChildProcess
  port: number
  /** Every JSON log line the process wrote so far, parsed (other output is kept as `{ msg: <text> }`). */
  lines(): Array<{ level?: number; msg: string; [field: string]: unknown }>
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  exited: Promise<number | null>
}

/**
 * Starts src/server.ts as `npm start` does (production build, JSON logs on stdout) on an ephemeral loopback port and
 * resolves once it listens. Killed when the test ends if it is still running.
 */
export async function startServerProcess(t: Test, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'server.ts')], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000)
    child.stdout!.on('data', function waitForListening() {
      const match = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)
      if (!match) return
      clearTimeout(timer)
      child.stdout!.off('data', waitForListening)
      resolve(Number(match[1]))
    })
    void exited.then(() => reject(new Error(`server exited:\n${output}`)))
  })
  function lines() {
    return output
      .split('\n')
      .filter((text) => text.trim())
      .map((text) => {
        try {
          return JSON.parse(text) as { msg: string }
        } catch {
          return { msg: text }
        }
      })
  }
  return { child, port, lines, exited }
}
