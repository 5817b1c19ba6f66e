/**
 * A copy of a folder tree made of hard links: as fast as a symbolic link and as cheap on disk, yet the copy is a
 * folder of its own. A release keeps the packages it was built with when the checkout's node_modules is replaced
 * (`npm ci` removes the files and writes new ones; linked files keep the old content), and the release folder can be
 * moved or copied to another machine whole. Across file systems, where a hard link cannot be made, files are copied.
 */
import { copyFile, link, lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises'
import path from 'node:path'

export async function linkedCopy(from: string, to: string): Promise<void> {
  let sameDevice = true
  async function copyEntry(source: string, target: string): Promise<void> {
    const stats = await lstat(source)
    if (stats.isDirectory()) {
      await mkdir(target, { mode: stats.mode })
      const names = await readdir(source)
      await Promise.all(names.map((name) => copyEntry(path.join(source, name), path.join(target, name))))
    } else if (stats.isSymbolicLink()) {
      // node_modules/.bin's links are relative: they point into the copy as they pointed into the original.
      await symlink(await readlink(source), target)
    } else if (stats.isFile()) {
      if (sameDevice) {
        try {
          return await link(source, target)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
          sameDevice = false
        }
      }
      await copyFile(source, target)
    }
    // Sockets, FIFOs and devices have no place in a package folder: left out.
  }
  await copyEntry(from, to)
}
