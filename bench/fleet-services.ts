/**
 * The fleet's other parts for the benches that run several instances (bench/revalidation.ts, bench/content-scale-fleet.ts):
 * a redis-server and an nginx of the bench's own, each a plain process on a free loopback port, tracked with the
 * servers so that they end with the bench.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { host, processLimits } from './config.ts'
import { runNginx } from './nginx-proxy.ts'
import { findFreePort, trackChild } from './processes.ts'

/** redis-server on a free loopback port, no persistence; tracked with the servers. */
export async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await findFreePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  async function stop() {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await gone
  }
  trackChild(child, stop)
  let seen = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start within ${processLimits.startUpMs} ms:\n${seen}`)),
      processLimits.startUpMs,
    )
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8')
      if (/Ready to accept connections/.test(seen)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${seen}`)))
  })
  return { url: `redis://${host}:${port}`, stop }
}

/** nginx with a minimal configuration of its own: one round-robin upstream of the instances, nothing cached. */
export async function startNginx(ports: number[]): Promise<{ origin: string; stop: () => Promise<void> }> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-bench-fleet-nginx-'))
  await mkdir(path.join(prefix, 'logs'))
  const port = await findFreePort()
  const config = `worker_processes 1;
error_log logs/error.log warn;
pid logs/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path client_body;
  proxy_temp_path proxy_temp;
  fastcgi_temp_path fastcgi_temp;
  uwsgi_temp_path uwsgi_temp;
  scgi_temp_path scgi_temp;
  upstream instances {
${ports.map((one) => `    server ${host}:${one};`).join('\n')}
    keepalive 16;
  }
  server {
    listen ${host}:${port};
    location = /nginx-health { return 200 "ok\\n"; }
    location / {
      proxy_pass http://instances;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
  }
}
`
  const configFile = path.join(prefix, 'nginx.conf')
  await writeFile(configFile, config)
  return runNginx(prefix, configFile, port)
}
