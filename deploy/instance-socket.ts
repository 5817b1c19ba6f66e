/**
 * Where an instance listens: a Unix socket `<state>/sockets/<name>.sock` (SOCKET_PATH), in a folder only the deploy's
 * user and nginx's workers can enter, so no other local user can reach an instance past nginx (and choose its
 * X-Forwarded-For) or take over its address when it exits (docs/running-at-scale.md "Instances on Unix sockets"). The
 * name, picked by the deploy before the instance starts, keys its record, log and systemd unit. An instance a deploy
 * of an older Courier started on a loopback port (`port`, no `socket`) is still routed, watched and stopped.
 */
import { randomBytes } from 'node:crypto'
import { chmod, chown, mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { Agent, request } from 'undici'
import { listensOn, listensOnSocket } from './process-identity.ts'
import type { Instance, StatePaths } from './state.ts'
import { nginxWorkersAreAnotherUser } from './state-trust.ts'

/** `unix:<path>` as nginx's configuration takes it unquoted (deploy/nginx-prefix.ts checks the routing with it). */
export const socketServerPattern = /^unix:\/[A-Za-z0-9._/-]+$/

/** An instance's name: lower-case letters and digits (an older state's names are its ports). */
export const instanceNamePattern = /^[a-z0-9]{1,32}$/

/** A name no instance of the state has: 8 hex digits, checked against the records by `taken`. */
export async function newInstanceName(taken: (name: string) => Promise<boolean>): Promise<string> {
  for (;;) {
    const name = randomBytes(4).toString('hex')
    if (!(await taken(name))) return name
  }
}

export function socketOf(paths: StatePaths, name: string): string {
  return path.join(paths.sockets, `${name}.sock`)
}

/** The name that keys an instance's record, log and unit. */
export function instanceName(instance: Pick<Instance, 'socket' | 'port'>): string {
  return instance.socket ? path.basename(instance.socket, '.sock') : String(instance.port)
}

/** What nginx's `server` line and the readiness watcher name an instance by. */
export function upstreamOf(instance: Pick<Instance, 'socket' | 'port'>): string {
  return instance.socket ? `unix:${instance.socket}` : `127.0.0.1:${instance.port}`
}

/** Whether the process recorded for `instance` listens where the instance does (a pid reused by a stranger: no). */
export function listensWhereRecorded(instance: Instance): Promise<boolean> {
  if (instance.socket) return listensOnSocket(instance.pid, instance.socket)
  return instance.port === undefined ? Promise.resolve(false) : listensOn(instance.pid, instance.port)
}

/** The status of `GET /api/ready` at `server` (an `upstreamOf` value), 0 when nothing answered within `timeoutMs`. */
export async function readyStatus(server: string, timeoutMs: number): Promise<number> {
  const socketPath = server.startsWith('unix:') ? server.slice('unix:'.length) : undefined
  // One connection per probe, closed after it: nothing left open keeps the deploy or the watcher from exiting.
  const dispatcher = new Agent(socketPath ? { connect: { socketPath } } : {})
  const origin = socketPath ? 'http://localhost' : `http://${server}`
  try {
    const answer = await request(`${origin}/api/ready`, { dispatcher, signal: AbortSignal.timeout(timeoutMs) })
    await answer.body.dump()
    return answer.statusCode
  } catch {
    return 0
  } finally {
    void dispatcher.destroy()
  }
}

/** nginx started by root connects as `nobody` (docs/running-at-scale.md "The state folder"): its primary group. */
async function nginxWorkersGroup(): Promise<number> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '')
  const nobody = passwd.split('\n').find((line) => line.startsWith('nobody:'))
  return Number(nobody?.split(':')[3] ?? 65534)
}

/**
 * The sockets' folder: the deploy's user's alone (0700), or with nginx's workers as `nobody`, theirs to pass through
 * to a name they know (0710, group nobody's). The sockets in it are open to whoever reaches them.
 */
export async function prepareSocketFolder(paths: StatePaths): Promise<void> {
  const longest = socketOf(paths, 'f'.repeat(8))
  if (!socketServerPattern.test(`unix:${longest}`) || Buffer.byteLength(longest) > 107) {
    throw new Error(
      `the state folder ${paths.dir} cannot hold the instances' sockets: their paths (${longest}) must be at most ` +
        '107 bytes of letters, digits and . _ / -; choose a shorter state folder (e.g. /srv/courier)',
    )
  }
  await mkdir(paths.sockets, { recursive: true, mode: 0o700 })
  if (nginxWorkersAreAnotherUser()) {
    await chown(paths.sockets, 0, await nginxWorkersGroup())
    await chmod(paths.sockets, 0o710)
  } else {
    await chmod(paths.sockets, 0o700)
  }
}
