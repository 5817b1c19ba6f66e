/**
 * Serving the build's chunks as deltas against a chunk the browser kept from an older deployment (RFC 9842 `dcb`,
 * `dcz`),
 * and the headers that make every chunk answer a dictionary for the next deployment. docs/compression.md
 * "Dictionaries"; the deltas are written once, before (src/build/dictionary-deltas.ts).
 */
import { createReadStream, openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { compression } from '../../config/compression.ts'
import {
  availableDictionaryHash,
  chunkBase,
  deltaHeaderBytes,
  deltaMagic,
  dictionaryCoding,
  dictionaryRule,
  parseDeltaFileName,
  useAsDictionary,
  variesByDictionary,
  type DictionaryCoding,
} from '../compression/dictionaries.ts'
import { addVary } from '../compression/vary.ts'
import { errors } from '../errors.ts'
import { immutableAssetCacheControl } from '../../config/client-bundle.ts'
import { pathOf } from '../request-path.ts'

/** A zstd frame starts so (RFC 8878 section 3.1.1), right after the `dcz` header. */
const zstdFrameMagic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

export interface DictionaryDelta {
  /** The delta on disk. */
  file: string
  bytes: number
  /** The media type of the chunk it codes. */
  type: string
}

/** A chunk's deltas against one dictionary: one per coding the build wrote, and those codings smallest first. */
export interface DeltasAgainst {
  byCoding: Partial<Record<DictionaryCoding, DictionaryDelta>>
  smallestFirst: DictionaryCoding[]
}

/** The deltas of the build, by the URL path of the chunk each codes, then by the hex SHA-256 of its dictionary. */
export type DictionaryDeltas = ReadonlyMap<string, ReadonlyMap<string, DeltasAgainst>>

/** Why a delta's file cannot be served, or undefined when its header (and a zstd frame's start) are what its name says. */
function corruption(file: string, coding: DictionaryCoding, dictionaryHash: string): string | undefined {
  const magic = deltaMagic[coding]
  const headerBytes = deltaHeaderBytes(coding)
  const head = Buffer.alloc(headerBytes + zstdFrameMagic.length)
  const descriptor = openSync(file, 'r')
  let read: number
  try {
    read = readSync(descriptor, head, 0, head.length, 0)
  } finally {
    closeSync(descriptor)
  }
  if (read <= headerBytes) return `no ${coding} header and body`
  if (!head.subarray(0, magic.length).equals(magic)) return `no ${coding} header`
  if (head.subarray(magic.length, headerBytes).toString('hex') !== dictionaryHash) return 'its header names another dictionary'
  if (coding === 'dcz' && (read < head.length || !head.subarray(headerBytes).equals(zstdFrameMagic))) return 'no zstd frame after the header'
  return undefined
}

/**
 * The deltas beside the build's chunks (`<chunk>.<hex sha-256>.dcb` and `.dcz` in `client/chunks`), found once, at start-up. A
 * delta whose header is not what its name says, or with no chunk of a dictionary rule beside it, is logged as
 * COURIER_ERR_DICTIONARY_DELTA_CORRUPT and left out: its chunk goes in its other codings.
 */
export function findDictionaryDeltas(clientDir: string, log: FastifyBaseLogger): DictionaryDeltas {
  const deltas = new Map<string, Map<string, DeltasAgainst>>()
  const chunksDir = path.join(clientDir, 'chunks')
  let names: string[]
  try {
    names = readdirSync(chunksDir)
  } catch {
    return deltas
  }
  const present = new Set(names)
  for (const name of names) {
    const parsed = parseDeltaFileName(name)
    if (!parsed) continue
    const file = path.join(chunksDir, name)
    const urlPath = `${chunkBase}${parsed.chunkFile}`
    const type = compression.precompressedTypes[path.extname(parsed.chunkFile)]
    let problem: string | undefined
    try {
      problem =
        !present.has(parsed.chunkFile) || !dictionaryRule(urlPath) || !type
          ? 'no JavaScript or CSS chunk of that name beside it'
          : corruption(file, parsed.coding, parsed.dictionaryHash)
    } catch (error) {
      problem = (error as Error).message
    }
    if (problem) {
      log.warn({ err: new errors.DictionaryDeltaCorrupt(name, problem), file }, 'dictionary delta skipped')
      continue
    }
    let byDictionary = deltas.get(urlPath)
    if (!byDictionary) deltas.set(urlPath, (byDictionary = new Map()))
    let against = byDictionary.get(parsed.dictionaryHash)
    if (!against) byDictionary.set(parsed.dictionaryHash, (against = { byCoding: {}, smallestFirst: [] }))
    against.byCoding[parsed.coding] = { file, bytes: statSync(file).size, type: type! }
    const sizes = against.byCoding
    against.smallestFirst = (Object.keys(sizes) as DictionaryCoding[]).sort((a, b) => sizes[a]!.bytes - sizes[b]!.bytes)
  }
  return deltas
}

/**
 * The headers every answer of a chunk carries in any coding: `Use-As-Dictionary` (the browser keeps it as the
 * dictionary of the next deployment's version) and `Vary: accept-encoding, available-dictionary` (a cache must not
 * give a delta to a browser without its dictionary, nor the full file to one with it). Set before the coding's own
 * `Vary: accept-encoding`, which then finds it there.
 */
export function setChunkHeaders(reply: FastifyReply, url: string): void {
  const urlPath = pathOf(url)
  if (!variesByDictionary(urlPath)) return
  addVary(reply, 'accept-encoding')
  addVary(reply, 'available-dictionary')
  const rule = dictionaryRule(urlPath)
  if (rule) reply.header('use-as-dictionary', useAsDictionary(rule))
}

/**
 * Sends a chunk's delta where the request names, in `Available-Dictionary`, a dictionary the build has a delta against
 * and its Accept-Encoding takes `dcb` or `dcz` (named, weighed at least as any other coding of built assets; the
 * smaller delta on a tie): the answer has the headers of the chunk's other codings (type, year-long immutable
 * Cache-Control, no validator: the hash in the name is one) with `Content-Encoding: dcb` or `dcz`. Every other
 * request goes on to the `.zst`, `.br`, `.gz` or the file. A preHandler of the asset routes, before the one of zstd.
 */
export function dictionaryAssetHandler(deltas: DictionaryDeltas) {
  return function sendDictionaryDelta(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    if (!request.url.startsWith(chunkBase) || (request.method !== 'GET' && request.method !== 'HEAD')) return done()
    const byDictionary = deltas.get(pathOf(request.url))
    if (!byDictionary) return done()
    const header = request.headers['available-dictionary']
    const hash = availableDictionaryHash(Array.isArray(header) ? undefined : header)
    const against = hash === undefined ? undefined : byDictionary.get(hash)
    if (!against) return done()
    const coding = dictionaryCoding(request.headers['accept-encoding'], against.smallestFirst, compression.codingPreference.builtAsset)
    const delta = coding && against.byCoding[coding]
    if (!coding || !delta) return done()
    reply.code(200).type(delta.type).header('cache-control', immutableAssetCacheControl)
    setChunkHeaders(reply, request.url)
    reply.header('content-encoding', coding).header('content-length', delta.bytes)
    reply.send(request.method === 'HEAD' ? undefined : createReadStream(delta.file))
  }
}
