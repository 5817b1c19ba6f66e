/**
 * nginx with the repository's own configuration (deploy/nginx/) in front of a Courier server the bench started, as
 * docs/running-at-scale.md deploys it: a prefix folder of its own, the build's assets published into its shared
 * folder, every request routed to that one server. For `npm run lighthouse` with `LIGHTHOUSE_THROUGH_NGINX=true`.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { publishAssets, writePrefix } from '../deploy/nginx-prefix.ts'
import { host, processLimits } from './config.ts'
import { findFreePort, probe, trackChild } from './processes.ts'

export interface NginxProxy {
  origin: string
  port: number
  stop(): Promise<void>
}

/** Starts nginx in the foreground (tracked like the servers), ready once its own health path answers. */
export async function startNginxProxy(options: { distDir: string; deploymentId: string; upstreamPort: number }): Promise<NginxProxy> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-bench-nginx-'))
  const port = await findFreePort()
  const { configFile } = await writePrefix({
    prefix,
    listen: `${host}:${port}`,
    deployments: [{ id: options.deploymentId, servers: [`${host}:${options.upstreamPort}`] }],
  })
  await publishAssets(options.distDir, path.join(prefix, 'assets'), options.deploymentId)
  return runNginx(prefix, configFile, port)
}

/**
 * Runs nginx in the foreground with `configFile` (tracked like the servers), ready once its `/nginx-health` answers;
 * `stop` lets it finish what is in flight and removes the prefix folder.
 */
export async function runNginx(prefix: string, configFile: string, port: number): Promise<NginxProxy> {
  let output = ''
  const child = spawn('nginx', ['-p', prefix, '-c', configFile, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  async function stop() {
    // SIGQUIT: nginx finishes what is in flight, then exits.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT')
    await gone
    await rm(prefix, { recursive: true, force: true })
  }
  trackChild(child, stop)
  const origin = `http://${host}:${port}`
  const deadline = Date.now() + processLimits.startUpMs
  while ((await probe(`${origin}/nginx-health`, processLimits.probeTimeoutMs).catch(() => 0)) !== 200) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${output}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`nginx did not answer on ${port}:\n${output}`)
    }
    await sleep(processLimits.probeIntervalMs)
  }
  return { origin, port, stop }
}
