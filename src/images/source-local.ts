import { open, realpath } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors.ts'

export interface SourceImage {
  bytes: Buffer
  /** Seconds the source says it stays fresh (remote Cache-Control); undefined when it says nothing. */
  maxAgeS: number | undefined
}

/**
 * Reads `/images/x.jpg` from the public folder. The path was already checked for `..` and dot segments; the real path
 * is checked once more so that a symbolic link cannot lead out of the folder either.
 */
export async function readLocalImage(publicRoot: string, localPath: string, maxBytes: number): Promise<SourceImage> {
  const candidate = path.join(publicRoot, localPath)
  let real: string
  try {
    real = await realpath(candidate)
  } catch {
    throw new errors.ImageNotFound(localPath)
  }
  if (!real.startsWith(publicRoot + path.sep)) throw new errors.ImageNotFound(localPath)
  let handle
  try {
    handle = await open(real, 'r')
  } catch {
    throw new errors.ImageNotFound(localPath)
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw new errors.ImageNotFound(localPath)
    if (stats.size > maxBytes) throw new errors.ImageNotAnImage(`url is larger than ${maxBytes} bytes`)
    return { bytes: await handle.readFile(), maxAgeS: undefined }
  } finally {
    await handle.close()
  }
}
