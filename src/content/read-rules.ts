import { constants, type BigIntStats } from 'node:fs'
import path from 'node:path'
import { errors } from '../errors.ts'

/**
 * What a read of CONTENT_DIR may do, the same on the event loop's reads (src/content/content-files.ts) and on the
 * index's thread (src/content/index-read-worker.ts): the flags a file is opened with, the folder it must lie in, the
 * bytes read of it at most, and how its version is named.
 */

/** Why a file of the folder is not read: it is not content (docs/content.md "What a content file may be"). */
export type RefusedReason = 'not a regular file' | 'a link that leads out of CONTENT_DIR'

/**
 * Which version of a file is there, by `stat`: device, inode, size, modification and change times (ns). A file
 * written again, in place or replaced, changes its change time, which no program can set back (`touch -d` sets the
 * modification time alone), so a write shows here unless it falls in the same tick of the file system's clock as the
 * version compared with: `changedMs` lets a reader tell when that could be.
 */
export interface FileIdentity {
  version: string
  changedMs: number
}

/** A file's text with its modification time and its identity (`fstat` of the descriptor it was read from). */
export interface DatedText extends FileIdentity {
  text: string
  modifiedMs: number
}

/** A file system's answer is outside the process: a timer late because the process was held up is forgiven once. */
export const fileSystemTime = { forgiveLateTimer: true, ref: true }

/** Opened so that a FIFO cannot block the open and a link swapped in after the check is not followed. */
export const openFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

export function identityOf(stats: BigIntStats): FileIdentity {
  const version = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
  return { version, changedMs: Number(stats.ctimeMs) }
}

export function datedTextOf(buffer: Buffer, stats: BigIntStats): DatedText {
  return { text: buffer.toString('utf8'), modifiedMs: Number(stats.mtimeMs), ...identityOf(stats) }
}

/**
 * Whether a file's real path lies in the folder: in its real path as last resolved, or else in the one it has now
 * (`fresh`: a folder switched by a link to another release is followed at once).
 */
export async function liesInside(target: string, rootPath: (fresh: boolean) => string | Promise<string>) {
  const inside = (root: string) => target.startsWith(root + path.sep)
  return inside(await rootPath(false)) || inside(await rootPath(true))
}

/** Where the next read of a file goes, and how much it may bring. */
export interface ReadStep {
  buffer: Buffer
  offset: number
  length: number
}

/**
 * The reads of a whole file of `size` bytes (by its `fstat`): yields where to read next and is sent how many bytes
 * came, until a read brings none. It reads to the file's end whatever its size said a moment ago (a file that grows,
 * or a size that lies), never past one byte more than `maxBytes`: past that, COURIER_ERR_CONTENT_INVALID. Its drivers
 * call `read` or `readSync`, so the rule is written once for both.
 */
export function* wholeFileReads(file: string, size: number, maxBytes: number): Generator<ReadStep, Buffer, number> {
  const tooLarge = () => new errors.ContentInvalid(file, `more than ${maxBytes} bytes; at most ${maxBytes} are read`)
  let buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1)
  let length = 0
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) throw tooLarge()
      buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(buffer.length, maxBytes + 1 - buffer.length))])
    }
    const bytesRead = yield { buffer, offset: length, length: buffer.length - length }
    if (bytesRead === 0) break
    length += bytesRead
  }
  if (length > maxBytes) throw tooLarge()
  return buffer.subarray(0, length)
}
