import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import Fastify, { type FastifyInstance } from 'fastify'
import { pino } from 'pino'
import sharp from 'sharp'
import type { Test } from 'tap'
import errors from '../../plugins/errors.ts'
import image, { type ImageOptions } from '../../plugins/image.ts'
import { captureLogs, type LogLine } from './app.ts'

export interface ImageApp {
  app: FastifyInstance
  publicRoot: string
  cacheDir: string
  logs(): LogLine[]
  /** How many `image transformed` lines were logged so far. */
  transforms(): number
}

/** A fresh folder removed when the test ends. */
export function temporaryFolder(t: Test, prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), `courier-${prefix}-`))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  return folder
}

/** A JPEG of `width` x `height` with some detail, so encoders have work to do. */
export async function jpegOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .composite([
      {
        input: Buffer.from(
          `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#1a4"/></svg>`,
        ),
      },
    ])
    .jpeg({ quality: 90 })
    .toBuffer()
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typeAndData) >>> 0)
  return Buffer.concat([length, typeAndData, crc])
}

/** The data of a PNG's IHDR chunk: `width` x `height`, 8-bit truecolour RGB. */
function rgbPngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour RGB
  return header
}

/** A valid, tiny PNG (a few dozen bytes) whose header declares `width` x `height`: a decompression bomb's shape. */
export function pixelBombPng(width: number, height: number): Buffer {
  const header = rgbPngHeader(width, height)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * The image plugin alone on a bare instance (with the error handler, for the JSON error bodies), a public folder of
 * test files in a temporary folder, a fresh cache folder, and the log captured.
 */
export async function buildImageApp(
  t: Test,
  files: Record<string, Buffer | string>,
  options: Partial<ImageOptions> = {},
): Promise<ImageApp> {
  const publicRoot = temporaryFolder(t, 'public')
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(publicRoot, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  const cacheDir = options.cacheDir ?? path.join(temporaryFolder(t, 'cache'), 'images')
  const { stream, lines } = captureLogs()
  const app = Fastify({ loggerInstance: pino({ level: 'debug' }, stream) }) as unknown as FastifyInstance
  await app.register(errors)
  await app.register(image, { publicRoot, cacheDir, ...options })
  t.teardown(() => app.close())
  await app.ready()
  return {
    app,
    publicRoot,
    cacheDir,
    logs: lines,
    transforms: () => lines().filter((line) => line.msg === 'image transformed').length,
  }
}

/** Scanlines of a solid RGB frame, zlib-compressed for an IDAT or fdAT chunk (filter byte 0 on each row). */
function solidFrame(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3)
  for (let x = 0; x < width; x += 1) row.set(rgb, 1 + x * 3)
  return deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))
}

/** An fcTL chunk's data: frame `sequence`, full size, at 0,0, shown 1/2 s, no dispose or blend. */
function frameControl(sequence: number, width: number, height: number): Buffer {
  const data = Buffer.alloc(26)
  data.writeUInt32BE(sequence, 0)
  data.writeUInt32BE(width, 4)
  data.writeUInt32BE(height, 8)
  data.writeUInt16BE(1, 20) // delay numerator
  data.writeUInt16BE(2, 22) // delay denominator
  return data
}

/**
 * A real animated PNG of two solid frames (red, then blue), chunk by chunk with their CRCs: `acTL` before `IDAT` as
 * the APNG specification orders them. Browsers play it; decoders without APNG support show the first frame.
 */
export function animatedPng(width: number, height: number): Buffer {
  const header = rgbPngHeader(width, height)
  const animation = Buffer.alloc(8)
  animation.writeUInt32BE(2, 0) // frames
  animation.writeUInt32BE(0, 4) // plays: forever
  const sequence = Buffer.alloc(4)
  sequence.writeUInt32BE(2, 0)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('acTL', animation),
    pngChunk('fcTL', frameControl(0, width, height)),
    pngChunk('IDAT', solidFrame(width, height, [255, 0, 0])),
    pngChunk('fcTL', frameControl(1, width, height)),
    pngChunk('fdAT', Buffer.concat([sequence, solidFrame(width, height, [0, 0, 255])])),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}
