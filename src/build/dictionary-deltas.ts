/**
 * Deltas of a build's chunks against older deployments' chunks (RFC 9842 `dcb` and `dcz`), made once, when a deployment
 * is published (deploy/rolling-deploy.ts) or by `npm run deltas` on a single server: never per request.
 * docs/compression.md "Dictionaries".
 */
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import {
  brotliCompress,
  brotliDecompress,
  constants,
  zstdCompress,
  zstdDecompress,
  type BrotliOptions,
} from 'node:zlib'
import { dictionaries } from '../../config/dictionaries.ts'
import {
  chunkBase,
  deltaFileName,
  deltaHeader,
  deltaHeaderBytes,
  dictionaryCodings,
  dictionaryRule,
  sha256,
  type DictionaryCoding,
} from '../compression/dictionaries.ts'

const zstd = promisify(zstdCompress)
const unzstd = promisify(zstdDecompress)
/**
 * node:zlib's brotli takes a `dictionary` (Node 24.15 and later: "zlib: add support for brotli compression
 * dictionary"), the raw shared dictionary `dcb` needs: Chromium decodes these deltas
 * (test/e2e/journeys/dictionaries.test.ts). The installed @types/node does not declare the option yet.
 */
type BrotliWithDictionary = BrotliOptions & { dictionary: Buffer }
const brotli = promisify(brotliCompress) as (content: Buffer, options: BrotliWithDictionary) => Promise<Buffer>
const unbrotli = promisify(brotliDecompress) as (content: Buffer, options: BrotliWithDictionary) => Promise<Buffer>

/** A zstd dictionary in zstd's own format starts so; zstd would read such a chunk as one, not as raw content. */
const zstdDictionaryMagic = Buffer.from([0x37, 0xa4, 0x30, 0xec])
/** Any URL of the site's origin: patterns are matched as a browser does, relative to the chunk's URL. */
const origin = 'https://courier.invalid'

export interface Delta {
  /** The new chunk's file name (`faq-Bx2….js`). */
  chunk: string
  coding: DictionaryCoding
  /** The dictionary: the older chunk's path. */
  dictionary: string
  /** Bytes of the delta, header included, and of the best ordinary coding of the chunk it replaces. */
  bytes: number
  ordinaryBytes: number
}

export interface DeltaReport {
  written: Delta[]
  /** Deltas (a pair in one coding) no smaller than the chunk's best ordinary coding. */
  notSmaller: number
  /** Chunks or dictionaries above `dictionaries.maxDeltaBytes`. */
  tooLarge: number
}

/** The smallest of the chunk and its `.br`, `.zst` and `.gz` written at build time (src/build/precompress.ts). */
async function ordinaryBytes(file: string): Promise<number> {
  const sizes = await Promise.all(
    ['', '.br', '.zst', '.gz'].map((suffix) =>
      stat(`${file}${suffix}`).then(
        (found) => found.size,
        () => Infinity,
      ),
    ),
  )
  return Math.min(...sizes)
}

/**
 * One delta: the header naming the dictionary, then the chunk coded with it as raw content. `dcb`: brotli 11 with the
 * dictionary attached as a raw shared dictionary (node:zlib's `dictionary`), its window the default 4 MiB, within the
 * 16 MiB RFC 9842 allows. `dcz`: one zstd 19 frame that declares the content size, so it is one segment whose window
 * is the content itself: at most `maxDeltaBytes`, within what every `dcz` decoder accepts (config/dictionaries.ts).
 */
export async function encodeDelta(coding: DictionaryCoding, content: Buffer, dictionary: Buffer): Promise<Buffer> {
  const body =
    coding === 'dcb'
      ? await brotli(content, {
          dictionary,
          params: {
            [constants.BROTLI_PARAM_QUALITY]: dictionaries.brotliQuality,
            [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
          },
        })
      : await zstd(content, {
          dictionary,
          pledgedSrcSize: content.length,
          params: { [constants.ZSTD_c_compressionLevel]: dictionaries.zstdLevel, [constants.ZSTD_c_checksumFlag]: 1 },
        })
  return Buffer.concat([deltaHeader(coding, dictionary), body])
}

/** The chunk a delta decodes to, with node:zlib. */
export async function decodeDelta(coding: DictionaryCoding, delta: Buffer, dictionary: Buffer): Promise<Buffer> {
  const body = delta.subarray(deltaHeaderBytes(coding))
  return coding === 'dcb' ? unbrotli(body, { dictionary }) : unzstd(body, { dictionary })
}

/** One chunk's deltas against one dictionary, in each dictionary coding, where smaller than its ordinary coding. */
async function writeCodedDeltas(
  report: DeltaReport,
  delta: {
    chunksDir: string
    name: string
    content: Buffer
    ordinary: number
    dictionaryFile: string
    dictionary: Buffer
    hash: string
  },
): Promise<void> {
  const { chunksDir, name, content, ordinary, dictionaryFile, dictionary, hash } = delta
  for (const coding of dictionaryCodings) {
    const encoded = await encodeDelta(coding, content, dictionary)
    if (encoded.length >= ordinary) {
      report.notSmaller += 1
      continue
    }
    if (!(await decodeDelta(coding, encoded, dictionary)).equals(content)) {
      throw new Error(`the ${coding} delta of ${name} against ${dictionaryFile} does not decode to it`)
    }
    const target = path.join(chunksDir, deltaFileName(name, hash, coding))
    await writeFile(`${target}.tmp`, encoded)
    await rename(`${target}.tmp`, target)
    report.written.push({
      chunk: name,
      coding,
      dictionary: dictionaryFile,
      bytes: encoded.length,
      ordinaryBytes: ordinary,
    })
  }
}

/**
 * Writes `<chunk>.<hex sha-256 of the dictionary>.dcb` and `.dcz` beside each JavaScript and CSS chunk of `chunksDir`
 * for every file of `dictionaryFiles` that a browser would offer as its dictionary (the older chunk's `match` pattern
 * takes the new chunk's URL; a file of the same name only when its bytes differ), where the delta is smaller than the
 * chunk's best ordinary coding. Each delta is decoded once before it is written. Files are written under a temporary
 * name, then renamed.
 */
export async function writeDeltas(chunksDir: string, dictionaryFiles: readonly string[]): Promise<DeltaReport> {
  const report: DeltaReport = { written: [], notSmaller: 0, tooLarge: 0 }
  const candidates: { file: string; pattern: URLPattern }[] = []
  for (const file of dictionaryFiles) {
    const rule = dictionaryRule(`${chunkBase}${path.basename(file)}`)
    if (rule) candidates.push({ file, pattern: new URLPattern(rule.match, origin) })
  }
  if (candidates.length === 0) return report
  const names = (await readdir(chunksDir, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
  for (const name of names) {
    if (!dictionaryRule(`${chunkBase}${name}`)) continue
    const file = path.join(chunksDir, name)
    // A file of the same name is a dictionary too when its bytes differ: a chunk's name hashes its code before the
    // build stamps `?dpl=<id>` on its imports, so two deployments can give one name different bytes.
    const matching = candidates.filter((one) => one.pattern.test(`${origin}${chunkBase}${name}`))
    if (matching.length === 0) continue
    const content = await readFile(file)
    if (content.length > dictionaries.maxDeltaBytes) {
      report.tooLarge += 1
      continue
    }
    const ordinary = await ordinaryBytes(file)
    const done = new Set<string>()
    for (const candidate of matching) {
      const dictionary = await readFile(candidate.file)
      if (dictionary.length > dictionaries.maxDeltaBytes) {
        report.tooLarge += 1
        continue
      }
      if (dictionary.length === 0 || dictionary.subarray(0, 4).equals(zstdDictionaryMagic)) continue
      if (path.basename(candidate.file) === name && dictionary.equals(content)) continue
      const hash = sha256(dictionary).toString('hex')
      // The same chunk kept by several deployments is one dictionary.
      if (done.has(hash)) continue
      done.add(hash)
      await writeCodedDeltas(report, {
        chunksDir,
        name,
        content,
        ordinary,
        dictionaryFile: candidate.file,
        dictionary,
        hash,
      })
    }
  }
  return report
}

/** The JavaScript and CSS chunks of a folder (a build's `client/chunks`, or the shared folder): the dictionaries. */
export async function dictionaryFilesIn(chunksDir: string, only?: ReadonlySet<string>): Promise<string[]> {
  const entries = await readdir(chunksDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw error
  })
  return entries
    .filter((entry) => entry.isFile() && (!only || only.has(entry.name)) && dictionaryRule(`${chunkBase}${entry.name}`))
    .map((entry) => path.join(chunksDir, entry.name))
}
