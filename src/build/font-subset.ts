import { createHash } from 'node:crypto'
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Plugin } from 'vite'

export interface FontSubsetOptions {
  /** The font to cut from: a package path as CSS would name it (`@fontsource-variable/inter/files/x.woff2`). */
  source: string
  /** The name CSS imports the subset by (`courier-font/inter-core-wght-normal.woff2`); the file keeps its base name. */
  id: string
  /** The code points to keep, as inclusive ranges. */
  ranges: readonly (readonly [number, number])[]
  /** Where cut fonts are kept between builds (node_modules/.cache/...). */
  cacheDir: string
}

/** The text holding every code point of `ranges`, for the subsetter. */
export function rangesText(ranges: FontSubsetOptions['ranges']): string {
  let text = ''
  for (const [first, last] of ranges) {
    for (let point = first; point <= last; point += 1) text += String.fromCodePoint(point)
  }
  return text
}

/**
 * A subset of a web font, cut at build time with HarfBuzz (subset-font) and handed to Vite as an ordinary file: CSS
 * names it by `id` (an alias of the cut file), Vite fingerprints, emits and preloads it like any asset. The variation
 * axes and the layout features of the kept glyphs stay. The cut is kept under `cacheDir`, keyed by the source's bytes
 * and the ranges, so a rebuild (and the test build) reuses it; the same inputs always give the same file, so
 * deployments stay stable.
 */
export function fontSubset(options: FontSubsetOptions): Plugin {
  const { source, id, ranges, cacheDir } = options
  async function cut(): Promise<string> {
    const sourceFile = createRequire(import.meta.url).resolve(source)
    const bytes = await readFile(sourceFile)
    const text = rangesText(ranges)
    const key = createHash('sha256').update(bytes).update(text).digest('hex').slice(0, 16)
    const file = path.join(cacheDir, key, path.posix.basename(id))
    try {
      await access(file)
      return file
    } catch {
      // Not cut yet: cut it below.
    }
    const { default: subsetFont } = await import('subset-font')
    const subset = await subsetFont(bytes, text, { targetFormat: 'woff2' })
    await mkdir(path.dirname(file), { recursive: true })
    // Written whole or not at all: two builds at once must never read half a font.
    const partial = `${file}.${process.pid}.partial`
    await writeFile(partial, subset)
    await rename(partial, file)
    return file
  }

  return {
    name: 'courier:font-subset',
    // An alias, made before anything resolves: Vite's CSS resolves url()s with its aliases, not with plugins' hooks.
    async config() {
      return { resolve: { alias: [{ find: id, replacement: await cut() }] } }
    },
  }
}
