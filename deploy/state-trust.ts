/**
 * What the deploy trusts before it reads or starts anything (docs/running-at-scale.md "The state folder"): a state
 * folder, its `courier.env` and the TLS key only when no other local user can change or read them. The env file's
 * variables (NODE_OPTIONS, ...) become the instances' code and the state's records become the commands the deploy
 * runs, so a folder or file another user owns or may write is refused, with the path and the fix, before any step.
 * The deploy's own writes are private (umask 077), but for what nginx's workers serve.
 */
import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath } from 'node:fs/promises'
import { userInfo } from 'node:os'
import path from 'node:path'

export const stateModes = Object.freeze({
  /** Set by each entry point of the deploy before its first write: files 0600, folders 0700 (state.json, the
   * instances' records and logs, nginx's configuration and logs, the releases), readable by the deploy's user alone. */
  umask: 0o077,
  /** A state folder the deploy makes: its user's alone. */
  stateFolder: 0o700,
  /**
   * A folder nginx's workers pass through (the state folder, nginx's prefix, its `cache/`) when they run as another
   * user: nginx started by root runs its workers as `nobody`. Others may go through it to a name they know, not list
   * it; what lies below is private unless its own mode says otherwise (the served files below).
   */
  passThrough: 0o711,
  /** The shared asset folder and certbot's challenges: what nginx's workers read and serve to anyone who asks. */
  servedFolder: 0o755,
  servedFile: 0o644,
})

/** nginx started by root serves as `nobody` (no `user` line in deploy/nginx/nginx.conf): another user than the
 * deploy's. Started by anyone else, its workers are the deploy's user. */
export function nginxWorkersAreAnotherUser(): boolean {
  return process.getuid?.() === 0
}

/** The mode of a folder nginx's workers must pass through (`stateModes.passThrough`), else the deploy's alone. */
export function passThroughMode(): number {
  return nginxWorkersAreAnotherUser() ? stateModes.passThrough : 0o700
}

export type UntrustedCode =
  | 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE'
  | 'COURIER_ERR_DEPLOY_UNTRUSTED_ENV_FILE'
  | 'COURIER_ERR_DEPLOY_UNTRUSTED_TLS_KEY'

/** A state folder, env file or key another local user could change or read: one line, the path and the fix. */
export class UntrustedPathError extends Error {
  override name = 'UntrustedPathError'
  readonly code: UntrustedCode
  constructor(code: UntrustedCode, message: string) {
    super(message)
    this.code = code
  }
}

const myUid = (): number => process.getuid?.() ?? 0
/** The deploy's user, or root (who can change anything anyway). */
const trustedOwner = (uid: number): boolean => uid === myUid() || uid === 0
const octal = (mode: number): string => (mode & 0o7777).toString(8)
/** S_ISVTX, the sticky bit (inode(7)): Node's fs.constants lacks it. */
const sticky = 0o1000

function refuseState(message: string): never {
  throw new UntrustedPathError('COURIER_ERR_DEPLOY_UNTRUSTED_STATE', message)
}

/**
 * A folder above the state: another user who owns it, or may write into a folder that is not sticky, can rename the
 * state folder away and put one of their own in its place. A sticky folder (`/tmp`) owned by root or the user lets
 * others remove only their own entries.
 */
async function checkFolderAbove(folder: string, stateDir: string): Promise<void> {
  const stats = await lstat(folder)
  if (!trustedOwner(stats.uid)) {
    refuseState(
      `${folder}, above the state folder ${stateDir}, is owned by uid ${stats.uid}, who could swap the state for ` +
        `another: put the state folder under a folder of yours or root's (e.g. /srv/courier)`,
    )
  }
  if ((stats.mode & 0o022) !== 0 && (stats.mode & sticky) === 0) {
    refuseState(
      `${folder}, above the state folder ${stateDir}, is writable by others (mode ${octal(stats.mode)}), who could ` +
        `swap the state for another: \`chmod go-w ${folder}\`, or put the state folder elsewhere (e.g. /srv/courier)`,
    )
  }
}

/** The state folder itself: the user's own, and no one else may add or replace a file in it. */
async function checkStateFolderItself(dir: string): Promise<void> {
  const stats = await lstat(dir)
  if (!stats.isDirectory()) refuseState(`the state folder ${dir} is not a folder: give --state a folder`)
  if (stats.uid !== myUid()) {
    refuseState(
      `the state folder ${dir} is owned by uid ${stats.uid}, not by you (uid ${myUid()}): its courier.env and ` +
        `records would be another user's; \`chown -R ${userInfo().username} ${dir} && chmod 700 ${dir}\` once you trust its ` +
        `files, or use a new folder`,
    )
  }
  if ((stats.mode & 0o022) !== 0) {
    refuseState(
      `the state folder ${dir} is writable by others (mode ${octal(stats.mode)}), who could put a courier.env or ` +
        `records in it: \`chmod 700 ${dir}\` once you trust its files, or use a new folder`,
    )
  }
}

/**
 * Refuses a state folder (UntrustedPathError) that another local user owns or may write, or that lies under a folder
 * they may change (every folder up to `/`); makes a missing one, mode 0700. Run before anything reads the state.
 */
export async function trustStateFolder(dir: string): Promise<void> {
  const given = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (given?.isSymbolicLink() && !trustedOwner(given.uid)) {
    refuseState(`the state folder ${dir} is a link owned by uid ${given.uid}: give --state the folder itself`)
  }
  let existing = given ? await realpath(dir) : path.dirname(dir)
  // Of a folder yet to be made, the part that exists: what it will be made in.
  while (
    !given &&
    !(await lstat(existing).then(
      () => true,
      () => false,
    ))
  )
    existing = path.dirname(existing)
  if (given) await checkStateFolderItself(existing)
  const start = given ? path.dirname(existing) : await realpath(existing)
  for (let folder = start; ; folder = path.dirname(folder)) {
    await checkFolderAbove(folder, dir)
    if (path.dirname(folder) === folder) break
  }
  if (!given) await mkdir(dir, { recursive: true, mode: stateModes.stateFolder })
}

/**
 * The text of `file` (undefined when there is none), once the file it names (a link followed: certbot's `live/` names
 * are root's links into `archive/`) is known to be the user's or root's and private to its owner. Checked on the open
 * descriptor, and read from it: the file checked is the file read.
 */
export async function readPrivateFile(
  file: string,
  code: Exclude<UntrustedCode, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE'>,
): Promise<string | undefined> {
  // O_NONBLOCK: a FIFO put in the file's place does not hang the deploy at open.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!handle) return undefined
  try {
    const stats = await handle.stat()
    const real = await realpath(file).catch(() => file)
    const named = real === file ? file : `${file} (${real})`
    if (!stats.isFile()) throw new UntrustedPathError(code, `${named} is not a regular file`)
    if (!trustedOwner(stats.uid)) {
      throw new UntrustedPathError(
        code,
        `${named} is owned by uid ${stats.uid}, not by you (uid ${myUid()}) or root: ` +
          `\`chown ${userInfo().username} ${real} && chmod 600 ${real}\` once you trust its content`,
      )
    }
    if ((stats.mode & 0o077) !== 0) {
      throw new UntrustedPathError(
        code,
        `${named} is mode ${octal(stats.mode)}, open to other users: \`chmod 600 ${real}\``,
      )
    }
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
