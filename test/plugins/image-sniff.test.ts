import sharp from 'sharp'
import t from 'tap'
import { isAnimatedImage, sniffImageFormat } from '../../src/images/sniff.ts'
import { animatedPng } from '../helpers/images.ts'

const frame = (colour: string) =>
  sharp({ create: { width: 20, height: 10, channels: 3, background: colour } })
    .png()
    .toBuffer()
const frames = [await frame('#f00'), await frame('#0f0'), await frame('#00f')]

t.test('animation is told from the bytes of each format', async (t) => {
  const cases: Array<[string, Buffer, boolean]> = [
    ['a still GIF', await sharp(frames[0]).gif().toBuffer(), false],
    [
      'an animated GIF',
      await sharp(frames, { join: { animated: true } })
        .gif()
        .toBuffer(),
      true,
    ],
    [
      'an animated GIF with a local colour table per frame',
      await sharp(frames, { join: { animated: true } })
        .gif({ reuse: false })
        .toBuffer(),
      true,
    ],
    ['a still WebP', await sharp(frames[0]).webp().toBuffer(), false],
    [
      'a still WebP with alpha (VP8X without the animation flag)',
      await sharp({ create: { width: 8, height: 8, channels: 4, background: '#f008' } })
        .webp()
        .toBuffer(),
      false,
    ],
    [
      'an animated WebP',
      await sharp(frames, { join: { animated: true } })
        .webp()
        .toBuffer(),
      true,
    ],
    ['a still PNG', frames[0]!, false],
    ['an APNG (acTL before IDAT)', animatedPng(12, 8), true],
    ['a JPEG', await sharp(frames[0]).jpeg().toBuffer(), false],
  ]
  t.equal(cases[4]![1].toString('latin1', 12, 16), 'VP8X', 'the WebP with alpha has the extended header')
  for (const [name, bytes, animated] of cases) {
    const format = sniffImageFormat(bytes)
    t.ok(format, `${name}: recognised (${format})`)
    t.equal(isAnimatedImage(bytes, format!), animated, `${name}: ${animated ? 'animated' : 'still'}`)
  }
})

t.test('an acTL chunk after IDAT is not an APNG; a truncated PNG is not animated', async (t) => {
  const apng = animatedPng(12, 8)
  const still = frames[0]!
  // Move the still PNG's chunks after its IDAT behind an acTL: the APNG specification requires acTL before IDAT.
  const iend = still.length - 12
  const late = Buffer.concat([still.subarray(0, iend), apng.subarray(33, 33 + 20), still.subarray(iend)])
  t.equal(late.toString('latin1', iend + 4, iend + 8), 'acTL', 'the test PNG has acTL after IDAT')
  t.equal(isAnimatedImage(late, 'png'), false)
  t.equal(isAnimatedImage(apng.subarray(0, 20), 'png'), false, 'cut inside IHDR')
})
