import { constants, zstdCompressSync } from 'node:zlib'

/**
 * zstd of a document kept for the deployment whose per-request nonce sits between its parts (RFC 8878): each kept
 * part is a zstd frame compressed once, each per-request insertion a frame of one raw block written here, and the
 * response is the frames one after the other. A zstd decoder decodes concatenated frames as the concatenation of
 * their contents (RFC 8878 section 3.1), so no request compresses anything: it copies the frames and writes a
 * header of a few bytes per insertion. Frames cannot refer back into one another (no dictionary a browser would
 * have): each part is compressed alone, which `npm run bench:codings` weighs against a compression per request.
 */
export interface ZstdFrames {
  /** Each kept part as a frame (an empty part: none). */
  readonly frames: readonly Buffer[]
  /** Sum of the frames' lengths. */
  readonly length: number
}

/** The magic number that opens every zstd frame, little-endian (RFC 8878 section 3.1.1). */
const magic = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])
/** A block holds at most 128 KiB of content (Block_Maximum_Size, RFC 8878 section 3.1.1.2.4). */
const maxBlockBytes = 128 * 1024

/** Each part compressed once, as its own frame, at `level`. */
export function compressFrames(parts: readonly Buffer[], level: number): ZstdFrames {
  const frames = parts.map((part) =>
    part.length === 0
      ? Buffer.alloc(0)
      : zstdCompressSync(part, {
          params: { [constants.ZSTD_c_compressionLevel]: level, [constants.ZSTD_c_contentSizeFlag]: 1 },
          pledgedSrcSize: part.length,
        }),
  )
  return { frames, length: frames.reduce((total, frame) => total + frame.length, 0) }
}

/**
 * `bytes` as one zstd frame of raw blocks: a single-segment frame (no window to keep: the decoder writes the content
 * straight out) that says its content size, without checksum, as zstd itself writes an incompressible input.
 */
export function rawFrame(bytes: Buffer): Buffer {
  if (bytes.length === 0) return Buffer.alloc(0)
  // Frame_Header_Descriptor: Single_Segment_flag (bit 5) and the size of Frame_Content_Size (bits 6-7): 1 byte up to
  // 255, 2 bytes (the size minus 256) up to 65,791, 4 bytes beyond (section 3.1.1.1.1).
  let sizeField: Buffer
  let descriptor: number
  if (bytes.length <= 0xff) {
    sizeField = Buffer.from([bytes.length])
    descriptor = 0x20
  } else if (bytes.length <= 0xffff + 256) {
    sizeField = Buffer.alloc(2)
    sizeField.writeUInt16LE(bytes.length - 256)
    descriptor = 0x60
  } else {
    sizeField = Buffer.alloc(4)
    sizeField.writeUInt32LE(bytes.length)
    descriptor = 0xa0
  }
  const list: Buffer[] = [magic, Buffer.from([descriptor]), sizeField]
  for (let start = 0; start < bytes.length; start += maxBlockBytes) {
    const chunk = bytes.subarray(start, start + maxBlockBytes)
    const last = start + maxBlockBytes >= bytes.length ? 1 : 0
    // Block_Header, 3 bytes little-endian: Last_Block (bit 0), Block_Type 0 = Raw (bits 1-2), Block_Size (bits 3-23).
    const header = Buffer.alloc(3)
    header.writeUIntLE(last | (chunk.length << 3), 0, 3)
    list.push(header, chunk)
  }
  return Buffer.concat(list)
}

/**
 * The zstd bytes of the parts with `between` inserted between each two of them; `first`, when given, goes between the
 * first two instead (a kept document's per-request head tags, before its nonces).
 */
export function zstdWithInsertions(frames: ZstdFrames, between: Buffer, first: Buffer = between): Buffer {
  const inserted = rawFrame(between)
  const list: Buffer[] = []
  let length = 0
  frames.frames.forEach((frame, index) => {
    if (index > 0) {
      const gap = index === 1 && first !== between ? rawFrame(first) : inserted
      list.push(gap)
      length += gap.length
    }
    list.push(frame)
    length += frame.length
  })
  return Buffer.concat(list, length)
}
