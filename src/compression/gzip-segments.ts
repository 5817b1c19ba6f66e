import { constants, crc32, deflateRawSync } from 'node:zlib'

/**
 * A gzip member assembled from parts compressed once and bytes inserted per request: the way to compress a document
 * kept for the deployment whose per-request nonce sits between its parts, without compressing the whole page again
 * for every request. Each kept part is raw deflate ending in a full flush (byte-aligned, and the next part starts with
 * an empty window, so parts can be joined in any order); the per-request bytes go in between as stored blocks; the
 * member ends with an empty final block and the gzip trailer (RFC 1952: CRC-32 and length of the whole content).
 * Valid gzip for any decoder: the only cost per request is the CRC over the content (a few microseconds for 10 kB).
 * Parts compressed knowing the lengths of the insertions also refer back to the parts before them, as a compression of
 * the whole document would (`compressSegments`).
 */
export interface GzipSegments {
  /** Each kept part, compressed. */
  compressed: readonly Buffer[]
  /** Each kept part as it is, for the CRC. */
  plain: readonly Buffer[]
  /** Sum of the plain parts' lengths. */
  plainLength: number
  /** Sum of the compressed parts' lengths. */
  compressedLength: number
  /** The length of what goes before each part (none before the first) that the parts were compressed for, if any. */
  gapLengths: readonly number[] | undefined
}

/** The gzip header: magic, deflate, no flags, no time, no extra flags, unknown OS (RFC 1952 section 2.3). */
export const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff])
const header = gzipHeader
/** An empty final block with fixed Huffman codes: what zlib writes to end a stream (BFINAL=1, BTYPE=01, EOB). */
const finalBlock = Buffer.from([0x03, 0x00])

/** The end of a gzip member: an empty final block, then CRC-32 and length of the content (mod 2^32). */
export function gzipTrailer(crc: number, length: number): Buffer {
  const trailer = Buffer.alloc(finalBlock.length + 8)
  finalBlock.copy(trailer, 0)
  trailer.writeUInt32LE(crc >>> 0, finalBlock.length)
  trailer.writeUInt32LE(length >>> 0, finalBlock.length + 4)
  return trailer
}
/** A stored block holds at most 65,535 bytes. */
const maxStoredBlock = 0xffff

/** Deflate refers back at most this far (RFC 1951 section 2). */
const deflateWindowBytes = 32 * 1024
const nul = 0

/**
 * The parts compressed, each ending on a byte boundary. With `gapLengths` (how many bytes go before part i, for
 * i >= 1), each part is compressed with everything before it as its dictionary, the gaps as NUL bytes: the decoder
 * holds the same bytes, the gaps' real ones in place of the NULs, so references into earlier parts decode right, and
 * none can reach into a gap, because a part that could match a NUL (holds one) is compressed alone, as every part is
 * without `gapLengths`. `gzipStartWithInsertions` then takes insertions of exactly those lengths.
 */
export function compressSegments(
  parts: readonly Buffer[],
  level: number,
  gapLengths?: readonly number[],
): GzipSegments {
  const chained = gapLengths !== undefined && parts.every((part) => !part.includes(nul))
  let before = Buffer.alloc(0)
  const compressed = parts.map((part, index) => {
    if (!chained) return deflateRawSync(part, { level, finishFlush: constants.Z_FULL_FLUSH })
    if (index > 0) before = Buffer.concat([before, Buffer.alloc(gapLengths[index] ?? 0, nul)])
    const dictionary = before.subarray(Math.max(0, before.length - deflateWindowBytes))
    before = Buffer.concat([dictionary, part])
    return dictionary.length === 0
      ? deflateRawSync(part, { level, finishFlush: constants.Z_FULL_FLUSH })
      : deflateRawSync(part, { level, finishFlush: constants.Z_FULL_FLUSH, dictionary })
  })
  return {
    compressed,
    plain: parts,
    plainLength: parts.reduce((total, part) => total + part.length, 0),
    compressedLength: compressed.reduce((total, part) => total + part.length, 0),
    gapLengths: chained ? gapLengths : undefined,
  }
}

/** `bytes` as non-final stored blocks (RFC 1951 section 3.2.4), starting on a byte boundary. */
function storedBlocks(bytes: Buffer): Buffer[] {
  const blocks: Buffer[] = []
  for (let start = 0; start < bytes.length; start += maxStoredBlock) {
    const chunk = bytes.subarray(start, start + maxStoredBlock)
    const blockHeader = Buffer.alloc(5)
    blockHeader[0] = 0x00 // BFINAL=0, BTYPE=00, the rest of the byte is padding
    blockHeader.writeUInt16LE(chunk.length, 1)
    blockHeader.writeUInt16LE(~chunk.length & 0xffff, 3)
    blocks.push(blockHeader, chunk)
  }
  return blocks
}

/**
 * The start of a gzip member: its bytes so far (header and blocks, no end), and the CRC-32 and length of its content.
 */
export interface GzipStart {
  bytes: Buffer
  crc: number
  length: number
}

/**
 * The start of a gzip member of the parts with `between` inserted between each two of them; `first`, when given, goes
 * between the first two instead (a kept document's per-request head tags, before its nonces). More deflate blocks may
 * follow it (src/compression/pieces.ts); `gzipTrailer` ends it.
 */
export function gzipStartWithInsertions(segments: GzipSegments, between: Buffer, first: Buffer = between): GzipStart {
  const { list, crc, length } = memberWithInsertions(segments, between, first)
  return { bytes: Buffer.concat(list), crc, length }
}

/** The whole gzip member of the parts with the insertions of `gzipStartWithInsertions`, joined in one copy. */
export function gzipWithInsertions(segments: GzipSegments, between: Buffer, first: Buffer = between): Buffer {
  const { list, crc, length } = memberWithInsertions(segments, between, first)
  list.push(gzipTrailer(crc, length))
  return Buffer.concat(list)
}

/** The buffers of a member's start (header, parts and stored insertions), with the CRC and length of its content. */
function memberWithInsertions(
  segments: GzipSegments,
  between: Buffer,
  first: Buffer,
): { list: Buffer[]; crc: number; length: number } {
  const { compressed, plain } = segments
  const inserted = between.length > 0 ? storedBlocks(between) : []
  const list: Buffer[] = [header]
  let crc = 0
  let insertedLength = 0
  for (let index = 0; index < compressed.length; index++) {
    const gap = index === 1 ? first : between
    if (index > 0 && segments.gapLengths && gap.length !== segments.gapLengths[index]) {
      throw new RangeError(
        `part ${index} was compressed for ${segments.gapLengths[index]} bytes before it, not ${gap.length}`,
      )
    }
    if (index > 0 && gap.length > 0) {
      list.push(...(gap === between ? inserted : storedBlocks(gap)))
      crc = crc32(gap, crc)
      insertedLength += gap.length
    }
    list.push(compressed[index]!)
    // zlib.crc32 of no bytes answers 0 whatever the running value: an empty part must leave it alone.
    if (plain[index]!.length > 0) crc = crc32(plain[index]!, crc)
  }
  return { list, crc, length: segments.plainLength + insertedLength }
}
