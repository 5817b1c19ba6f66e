/**
 * SOCKET_PATH before listening: a socket file left by a server that died (a crash, SIGKILL) makes listen fail with
 * EADDRINUSE, so it is removed; one a live server still accepts on is not, and neither is anything but a socket.
 */
import { lstat, unlink } from 'node:fs/promises'
import net from 'node:net'

export class SocketPathInUseError extends Error {
  override name = 'SocketPathInUseError'
}

/** Whether a server accepts connections on `socketPath` now (a refused or missing socket: no). */
function accepting(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect({ path: socketPath })
    probe.once('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.once('error', () => resolve(false))
  })
}

/** Clears the way to listen on `socketPath`, or throws SocketPathInUseError saying why not. */
export async function prepareSocketPath(socketPath: string): Promise<void> {
  const found = await lstat(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!found) return
  if (!found.isSocket()) {
    throw new SocketPathInUseError(`SOCKET_PATH ${socketPath} exists and is not a socket: nothing was removed`)
  }
  if (await accepting(socketPath)) {
    throw new SocketPathInUseError(`SOCKET_PATH ${socketPath}: another server accepts connections there`)
  }
  await unlink(socketPath)
}
