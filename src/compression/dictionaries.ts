/**
 * Compression Dictionary Transport (RFC 9842), the parts that are rules rather than files: which chunk is offered as
 * a dictionary and under which pattern, how a request names the dictionary it holds, and the framing of `dcb` and
 * `dcz` (the coding a request takes is negotiated with the others, src/compression/negotiate.ts). docs/compression.md
 * "Dictionaries".
 */
import { createHash } from 'node:crypto'
import path from 'node:path'
import { dictionaries } from '../../config/dictionaries.ts'

/** Where the build's chunks are served (`/_next/static/chunks/<name>-<hash>.<ext>`, vite.config.ts `assetsDir`). */
export const chunkBase = '/_next/static/chunks/'

/**
 * A chunk name as Vite writes it: `[name]-[hash]`, the hash 8 characters of base64url. The name is kept to letters,
 * digits, `_`, `.` and `-`, none of which means anything in a URLPattern, so the pattern needs no escaping (and nginx,
 * which writes the same header for files of its shared folder, can derive it with a plain regex).
 */
const chunkName = /^([A-Za-z0-9_.-]+)-[A-Za-z0-9_-]{8}$/

export interface DictionaryRule {
  /** The URLPattern path every later deployment's version of the chunk has: `/_next/static/chunks/faq-*.js`. */
  match: string
  /** The request destination (`script`, `style`). */
  destination: string
}

/**
 * The dictionary rule of a chunk's URL path, or undefined when it is not one offered as a dictionary (another
 * extension, a name not Vite's). The pattern replaces the content hash by `*`: the next deployment's chunk of the
 * same name (`faq-Bx2….js` after `faq-DOWzXlT5.js`) matches it, so the browser offers this one as its dictionary.
 * A relative path on the chunk's own origin, no regular expression group (Chromium refuses a pattern with one), and
 * the query (`?dpl=`) is free: a pattern's search component is a wildcard unless it names one.
 */
export function dictionaryRule(urlPath: string): DictionaryRule | undefined {
  if (!urlPath.startsWith(chunkBase)) return undefined
  const file = urlPath.slice(chunkBase.length)
  if (file.includes('/')) return undefined
  const extension = path.extname(file)
  const destination = dictionaries.destinations[extension]
  if (!destination || !dictionaries.extensions.includes(extension)) return undefined
  const name = chunkName.exec(file.slice(0, -extension.length))?.[1]
  if (!name) return undefined
  return { match: `${chunkBase}${name}-*${extension}`, destination }
}

/**
 * `Use-As-Dictionary` for a rule: `match` and `match-dest` only. No `id`: the browser names the dictionary by its
 * SHA-256 in `Available-Dictionary`, which is what the delta's file is found by; an `id` would come back as
 * `Dictionary-ID`, which Courier has no use for (and would have to vary on). `type` is `raw` by default.
 */
export function useAsDictionary(rule: DictionaryRule): string {
  return `match="${rule.match}", match-dest=("${rule.destination}")`
}

/** Whether a chunk answered for this URL path may differ by the dictionary the request names (`Vary`). */
export function variesByDictionary(urlPath: string): boolean {
  return urlPath.startsWith(chunkBase) && dictionaries.extensions.includes(path.extname(urlPath))
}

/**
 * The SHA-256 an `Available-Dictionary` header names, in hex, or undefined for anything but exactly one structured
 * field byte sequence (RFC 8941 section 3.3.5: `:` base64 `:`) of 32 bytes, in canonical base64 with its padding.
 * A header that is malformed, names another length or comes twice (joined with a comma) is as if absent: the answer
 * falls back to the ordinary codings, never an error (a server may always answer without the dictionary).
 */
export function availableDictionaryHash(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const match = /^[ \t]*:([A-Za-z0-9+/]{43}=):[ \t]*$/.exec(header)
  if (!match) return undefined
  const bytes = Buffer.from(match[1]!, 'base64')
  // A last character with bits past the 32nd byte set decodes alike but is not the canonical spelling.
  if (bytes.length !== 32 || bytes.toString('base64') !== match[1]) return undefined
  return bytes.toString('hex')
}

/** The two dictionary codings of RFC 9842: brotli (`dcb`) and zstd (`dcz`), each with the old chunk as dictionary. */
export type DictionaryCoding = 'dcb' | 'dcz'
export const dictionaryCodings: readonly DictionaryCoding[] = ['dcb', 'dcz']

/**
 * The start of every delta (RFC 9842 section 4): the magic of its coding, then the SHA-256 of the dictionary, so a
 * decoder checks it has the right one. `dcb`: `ff 44 43 42`; `dcz`: `5e 2a 4d 18 20 00 00 00`, a zstd skippable frame
 * of 32 bytes (magic `0x184D2A5E` little-endian, length 32), which a zstd decoder skips.
 */
export const deltaMagic: Readonly<Record<DictionaryCoding, Buffer>> = {
  dcb: Buffer.from([0xff, 0x44, 0x43, 0x42]),
  dcz: Buffer.from([0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00]),
}
export function deltaHeaderBytes(coding: DictionaryCoding): number {
  return deltaMagic[coding].length + 32
}

export function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest()
}

/** The header of a delta in `coding` against a dictionary. */
export function deltaHeader(coding: DictionaryCoding, dictionary: Uint8Array): Buffer {
  return Buffer.concat([deltaMagic[coding], sha256(dictionary)])
}

/** The file a delta of `chunkFile` against the dictionary of this hex SHA-256 is written to, beside the chunk. */
export function deltaFileName(chunkFile: string, dictionaryHash: string, coding: DictionaryCoding): string {
  return `${chunkFile}.${dictionaryHash}.${coding}`
}

/** The chunk file, dictionary hash and coding of a delta's file name, or undefined for any other name. */
export function parseDeltaFileName(name: string):
  | {
      chunkFile: string
      dictionaryHash: string
      coding: DictionaryCoding
    }
  | undefined {
  const match = /^(.+)\.([0-9a-f]{64})\.(dcb|dcz)$/.exec(name)
  return match ? { chunkFile: match[1]!, dictionaryHash: match[2]!, coding: match[3] as DictionaryCoding } : undefined
}
