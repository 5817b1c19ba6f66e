/**
 * Which process a pid is now (Linux /proc). A pid written in a state file may belong to another process after a crash
 * or a reboot; the deploy signals a process only when its pid, its start time and the socket it listens on all match
 * what the state recorded when it started it.
 */
import { readdir, readFile, readlink } from 'node:fs/promises'

/** A process the deploy started: enough to recognise it later. */
export interface ProcessIdentity {
  pid: number
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot at which it started (unique per pid over a boot). */
  startTime: string
}

/** The start time of `pid` (field 22 of /proc/<pid>/stat), or undefined when no such process (or a zombie) exists. */
export async function startTimeOf(pid: number): Promise<string | undefined> {
  if (!Number.isInteger(pid) || pid <= 0) return undefined
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  if (stat === undefined) return undefined
  // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so the fields start after the last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // A zombie has exited: nothing to signal, its pid is about to be free.
  if (fields[0] === 'Z') return undefined
  return fields[19]
}

/** Whether `identity` is still the process it was (same pid, same start time). */
export async function isSameProcess(identity: ProcessIdentity): Promise<boolean> {
  return (await startTimeOf(identity.pid)) === identity.startTime
}

/** The TCP sockets listening (IPv4 and IPv6), by inode: their ports, from /proc/net/tcp{,6}. */
async function listeningSockets(): Promise<Map<string, number>> {
  const sockets = new Map<string, number>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10) continue
      // State 0A is LISTEN; the local address ends with `:<port in hex>`.
      const local = fields[1]!
      if (fields[3] === '0A') sockets.set(fields[9]!, Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16))
    }
  }
  return sockets
}

/** The inodes of the sockets process `pid` holds (its file descriptors, /proc/<pid>/fd). */
async function socketInodes(pid: number): Promise<string[]> {
  const inodes: string[] = []
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const inode = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''))?.[1]
    if (inode !== undefined) inodes.push(inode)
  }
  return inodes
}

/** The TCP ports process `pid` listens on. */
export async function listeningPorts(pid: number): Promise<Set<number>> {
  const sockets = await listeningSockets()
  const ports = new Set<number>()
  for (const inode of await socketInodes(pid)) {
    const port = sockets.get(inode)
    if (port !== undefined) ports.add(port)
  }
  return ports
}

/** Whether process `pid` holds a socket listening on `port`. */
export async function listensOn(pid: number, port: number): Promise<boolean> {
  return (await listeningPorts(pid)).has(port)
}

/** The Unix sockets listening, by inode: their paths, from /proc/net/unix. */
async function listeningUnixSockets(): Promise<Map<string, string>> {
  const sockets = new Map<string, string>()
  const text = await readFile('/proc/net/unix', 'utf8').catch(() => '')
  for (const line of text.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path; Flags 00010000 (__SO_ACCEPTCON) is a listening socket.
    const fields = line.trim().split(/\s+/)
    if (fields.length >= 8 && fields[3] === '00010000') sockets.set(fields[6]!, fields.slice(7).join(' '))
  }
  return sockets
}

/** Whether process `pid` holds a socket listening on the Unix socket `socketPath`. */
export async function listensOnSocket(pid: number, socketPath: string): Promise<boolean> {
  const sockets = await listeningUnixSockets()
  return (await socketInodes(pid)).some((inode) => sockets.get(inode) === socketPath)
}

/** The identity of a process just spawned (its pid must be known; it runs, since it was just started). */
export async function identify(pid: number | undefined): Promise<ProcessIdentity> {
  if (pid === undefined) throw new Error('the process did not start (no pid)')
  const startTime = await startTimeOf(pid)
  if (startTime === undefined) throw new Error(`process ${pid} exited at once`)
  return { pid, startTime }
}
