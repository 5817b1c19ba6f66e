/** Source formats the optimizer reads, told from the first bytes of the file, never from its name. */
export type SourceFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'svg'

function startsWith(bytes: Buffer, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false
  return signature.every((byte, index) => bytes[offset + index] === byte)
}

const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0))

/** The format of `bytes` by its magic numbers, or undefined for anything that is not an image we handle. */
export function sniffImageFormat(bytes: Buffer): SourceFormat | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg'
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif'
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp'
  if (
    startsWith(bytes, ascii('ftyp'), 4) &&
    (startsWith(bytes, ascii('avif'), 8) || startsWith(bytes, ascii('avis'), 8))
  ) {
    return 'avif'
  }
  // SVG is text: an optional BOM, XML prolog, comments or doctype, then an <svg element within the first kilobytes.
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
  if (head.startsWith('<') && /<svg[\s>]/i.test(head)) return 'svg'
  return undefined
}

/** PNG: an `acTL` chunk before the first `IDAT` makes it an animated PNG (APNG specification, "Structure"). */
function isAnimatedPng(bytes: Buffer): boolean {
  let offset = 8
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    if (type === 'acTL') return true
    if (type === 'IDAT' || type === 'IEND') return false
    offset += 12 + length
  }
  return false
}

/** GIF: more than one image descriptor (0x2C) among its blocks, walked by their lengths (GIF89a specification). */
function isAnimatedGif(bytes: Buffer): boolean {
  if (bytes.length < 13) return false
  const skipSubBlocks = (from: number): number => {
    let offset = from
    while (offset < bytes.length && bytes[offset] !== 0) offset += bytes[offset]! + 1
    return offset + 1
  }
  const screenFlags = bytes[10]!
  let offset = 13 + (screenFlags & 0x80 ? 3 * 2 ** ((screenFlags & 0x07) + 1) : 0)
  let frames = 0
  while (offset < bytes.length) {
    const block = bytes[offset]
    if (block === 0x21) {
      offset = skipSubBlocks(offset + 2) // extension: introducer, label, then sub-blocks
    } else if (block === 0x2c) {
      frames += 1
      if (frames > 1) return true
      const flags = bytes[offset + 9] ?? 0
      offset += 10 + (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0)
      offset = skipSubBlocks(offset + 1) // LZW minimum code size, then the image data
    } else {
      return false // trailer (0x3B) or anything unexpected
    }
  }
  return false
}

/** WebP: the extended header (`VP8X`) with its animation flag set (WebP container specification). */
function isAnimatedWebp(bytes: Buffer): boolean {
  return startsWith(bytes, ascii('VP8X'), 12) && bytes.length > 20 && (bytes[20]! & 0x02) !== 0
}

/**
 * Whether an image holds more than one frame, told from its bytes (decoders may report one page for an APNG): GIF
 * with several frames, animated WebP, PNG with `acTL` before `IDAT`, AVIF image sequences (`avis`).
 */
export function isAnimatedImage(bytes: Buffer, format: SourceFormat): boolean {
  switch (format) {
    case 'png':
      return isAnimatedPng(bytes)
    case 'gif':
      return isAnimatedGif(bytes)
    case 'webp':
      return isAnimatedWebp(bytes)
    case 'avif':
      return startsWith(bytes, ascii('avis'), 8)
    default:
      return false
  }
}
