/**
 * The deploy as the scale tests run it: `deploy/rolling-deploy.ts` on this Node (the pinned one, as `npm run deploy`
 * runs it), a state folder of the test's own stopped and removed on teardown, and a test certificate.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { State } from '../../deploy/state.ts'
import { onFreePorts, portTaken } from '../helpers/free-port.ts'
import { projectRoot } from '../reliability/server-process.ts'

export const deployScript = path.join(projectRoot, 'deploy', 'rolling-deploy.ts')

export interface DeployRun {
  code: number | null
  output: string
  /** stdout's JSON lines. */
  lines: Array<{ msg: string } & Record<string, unknown>>
}

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  // tap's loader options are for the test process only.
  const { NODE_OPTIONS: _runnerOptions, ...inherited } = process.env
  return { ...inherited, ...extra }
}

function linesOf(output: string): DeployRun['lines'] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as DeployRun['lines'][number])
}

/** Starts the deploy script; `done` resolves when it exits. */
export function startDeploy(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<DeployRun>; output: () => string } {
  const child = spawn(process.execPath, [deployScript, ...args], {
    cwd: projectRoot,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const done = new Promise<DeployRun>((resolve) => {
    child.once('exit', (code) => resolve({ code, output: `${stdout}${stderr}`, lines: linesOf(stdout) }))
  })
  return { child, done, output: () => stdout }
}

export function runDeploy(args: string[], env: Record<string, string> = {}): Promise<DeployRun> {
  return startDeploy(args, env).done
}

/**
 * The first deploy of a state on `count` free loopback ports given to `argsFor` (`--listen`, `--https-listen`): run
 * again on others when nginx finds one taken in between (a failed deploy undoes itself, so it can run again). Its run,
 * whatever else its outcome, and the ports it got.
 */
export function firstDeploy(
  count: number,
  argsFor: (ports: number[]) => string[],
  env: Record<string, string> = {},
): Promise<{ ports: number[]; run: DeployRun }> {
  return onFreePorts(count, async (ports) => {
    const run = await runDeploy(argsFor(ports), env)
    const failure = run.lines.find((line) => line.msg === 'deploy failed')
    if (failure && portTaken.test(String(failure.error)))
      throw new Error(`the deploy found a port taken:\n${run.output}`)
    return { ports, run }
  })
}

/** A state folder outside the project, its env file written (mode 0600, as the deploy requires); `--stop` and removal
 * on teardown. */
export async function stateFolder(t: Test, envFile: Record<string, string>): Promise<string> {
  const state = await mkdtemp(path.join(tmpdir(), 'courier-state-'))
  await writeFile(
    path.join(state, 'courier.env'),
    Object.entries(envFile)
      .map(([name, value]) => `${name}=${value}\n`)
      .join(''),
    { mode: 0o600 },
  )
  t.teardown(async () => {
    await runDeploy(['--stop', '--state', state])
    await rm(state, { recursive: true, force: true })
  })
  return state
}

export async function readDeployState(state: string): Promise<State> {
  return JSON.parse(await readFile(path.join(state, 'state.json'), 'utf8')) as State
}

/** A self-signed certificate for `localhost` and 127.0.0.1 (the toolchain notes' openssl line) in `folder`. */
export function makeCertificate(
  folder: string,
  name: string,
  subject = '/CN=localhost',
): { certificate: string; key: string } {
  const certificate = path.join(folder, `${name}.pem`)
  const key = path.join(folder, `${name}.key`)
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certificate,
      '-days',
      '2',
      '-subj',
      subject,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  )
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`)
  return { certificate, key }
}

/** The pids of processes whose command line contains `text` (to find what a deploy left running). */
export async function processesMentioning(text: string): Promise<number[]> {
  return (await processesWithParents(text)).map((one) => one.pid)
}

/**
 * As `processesMentioning`, without the children of such a process: nginx forks its workers, cache manager and loader
 * (again at every reload) with the master's command line, which names the state until each child renames itself, so a
 * snapshot taken as nginx forks would count a process that is gone a moment later.
 */
export async function leadProcessesMentioning(text: string): Promise<number[]> {
  const found = await processesWithParents(text)
  const pids = new Set(found.map((one) => one.pid))
  return found.filter((one) => !pids.has(one.parent)).map((one) => one.pid)
}

async function processesWithParents(text: string): Promise<Array<{ pid: number; parent: number }>> {
  const found: Array<{ pid: number; parent: number }> = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (!commandLine.replaceAll('\0', ' ').includes(text)) continue
    // /proc/<pid>/stat: "pid (name) state ppid ..."; the name may hold spaces and parentheses, so read after the last ')'.
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    found.push({ pid: Number(entry), parent })
  }
  return found
}
