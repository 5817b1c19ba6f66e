import { readFile } from 'node:fs/promises'
import path from 'node:path'

/** `npm start` as package.json spells it (after its `prestart` build check). */
export interface StartCommand {
  /** The variables it sets (`NODE_ENV=production`). */
  env: Record<string, string>
  /** Node's flags, in order. */
  nodeArgs: string[]
  /** The entry, absolute: the compiled server. */
  entry: string
}

export class StartCommandError extends Error {
  override name = 'StartCommandError'
}

/**
 * Reads package.json's `start` script, so the tests and the bench start the server exactly as users do, Node's flags
 * included, instead of a copy of them that could drift. The script has the form `[NAME=value ...] node [flag ...]
 * entry`.
 */
export async function readStartCommand(root: string): Promise<StartCommand> {
  const { scripts } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string }
  }
  const words = scripts.start.trim().split(/\s+/)
  const env: Record<string, string> = {}
  while (words[0]?.includes('=')) {
    const [name, ...value] = words.shift()!.split('=')
    env[name!] = value.join('=')
  }
  if (words.shift() !== 'node' || words.length === 0) {
    throw new StartCommandError(`npm start is not of the form [NAME=value ...] node [flag ...] entry: ${scripts.start}`)
  }
  const entry = words.pop()!
  return { env, nodeArgs: words, entry: path.resolve(root, entry) }
}
