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
  if (startsWith(bytes, ascii('ftyp'), 4) && (startsWith(bytes, ascii('avif'), 8) || startsWith(bytes, ascii('avis'), 8))) {
    return 'avif'
  }
  // SVG is text: an optional BOM, XML prolog, comments or doctype, then an <svg element within the first kilobytes.
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart()
  if (head.startsWith('<') && /<svg[\s>]/i.test(head)) return 'svg'
  return undefined
}
