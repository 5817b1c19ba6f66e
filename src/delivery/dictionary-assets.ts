/**
 * The build's chunks as deltas against a chunk the browser kept from an older deployment (RFC 9842 `dcb`, `dcz`):
 * the deltas beside the chunks, found at start-up, and the headers that make every chunk answer a dictionary for the
 * next deployment. docs/compression.md "Dictionaries"; the deltas are written once, before
 * (src/build/dictionary-deltas.ts), and sent by the sender (src/delivery/built-assets.ts).
 */
import { openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { compression } from '../../config/compression.ts'
import {
  chunkBase,
  deltaHeaderBytes,
  deltaMagic,
  dictionaryRule,
  parseDeltaFileName,
  useAsDictionary,
  variesByDictionary,
  type DictionaryCoding,
} from '../compression/dictionaries.ts'
import { addVary } from '../compression/vary.ts'
import { errors } from '../errors.ts'
import { pathOf } from '../request-path.ts'
import type { Sender } from './send.ts'
import type { CodedFile } from './coded-assets.ts'

/** A zstd frame starts so (RFC 8878 section 3.1.1), right after the `dcz` header. */
const zstdFrameMagic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/** A chunk's deltas against one dictionary: one per coding the build wrote, and those codings smallest first. */
export interface DeltasAgainst {
  byCoding: Partial<Record<DictionaryCoding, CodedFile>>
  smallestFirst: DictionaryCoding[]
}

/** The deltas of the build, by the URL path of the chunk each codes, then by the hex SHA-256 of its dictionary. */
export type DictionaryDeltas = ReadonlyMap<string, ReadonlyMap<string, DeltasAgainst>>

/**
 * Why a delta's file cannot be served, or undefined when its header (and a zstd frame's start) are what its name says.
 */
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
  if (head.subarray(magic.length, headerBytes).toString('hex') !== dictionaryHash) {
    return 'its header names another dictionary'
  }
  if (coding === 'dcz' && (read < head.length || !head.subarray(headerBytes).equals(zstdFrameMagic))) {
    return 'no zstd frame after the header'
  }
  return undefined
}

/**
 * The deltas beside the build's chunks (`<chunk>.<hex sha-256>.dcb` and `.dcz` in `client/chunks`), found once, at
 * start-up. A delta whose header is not what its name says, or with no chunk of a dictionary rule beside it, is logged
 * as COURIER_ERR_DICTIONARY_DELTA_CORRUPT and left out: its chunk goes in its other codings.
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
 * dictionary of the next deployment's version) and `Vary` on the coding, then on `Available-Dictionary` (a cache must
 * not give a delta to a browser without its dictionary, nor the full file to one with it). Set before the coding's
 * own `Vary` (@fastify/static's, the sender's), which then finds it there.
 */
export function setChunkHeaders(reply: FastifyReply, url: string, sender: Sender): void {
  const urlPath = pathOf(url)
  if (!variesByDictionary(urlPath)) return
  sender.varyByCoding(reply)
  addVary(reply, 'available-dictionary')
  const rule = dictionaryRule(urlPath)
  if (rule) reply.header('use-as-dictionary', useAsDictionary(rule))
}
