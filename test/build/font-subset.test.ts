import t from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import subsetFont from 'subset-font'
import { coreFontRanges } from '../../config/fonts.ts'
import { rangesText } from '../../src/build/font-subset.ts'
import { build } from '../helpers/app.ts'

type Range = readonly [number, number]

const require = createRequire(import.meta.url)
const latinFile = require.resolve('@fontsource-variable/inter/files/inter-latin-wght-normal.woff2')

/** The ranges of a CSS `unicode-range` value (`U+0020-007E, U+00A0`). */
function parseUnicodeRange(value: string): Range[] {
  return value.split(',').map((part) => {
    const [first, last = first] = part.trim().replace(/^U\+/i, '').split('-')
    return [Number.parseInt(first!, 16), Number.parseInt(last!, 16)] as const
  })
}

/** The `unicode-range` of the @font-face whose src names `file`, in a stylesheet. */
function faceRange(css: string, file: string): Range[] {
  const face = css.split('@font-face').find((block) => block.includes(file))
  const value = face?.match(/unicode-range:\s*([^;]+);/)?.[1]
  if (!value) throw new Error(`no @font-face with unicode-range for ${file}`)
  return parseUnicodeRange(value)
}

const codePoints = (ranges: readonly Range[]) =>
  new Set(ranges.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i)))
const inRanges = (ranges: readonly Range[], point: number) =>
  ranges.some(([first, last]) => point >= first && point <= last)

const globalCss = readFileSync(path.join(import.meta.dirname, '../../client/styles/global.css'), 'utf8')
const packageCss = readFileSync(require.resolve('@fontsource-variable/inter/wght.css'), 'utf8')
const latinRange = faceRange(packageCss, 'inter-latin-wght-normal.woff2')
const coreFace = faceRange(globalCss, 'inter-core-wght-normal.woff2')
const restFace = faceRange(globalCss, 'inter-latin-wght-normal.woff2')

t.test('the stylesheet declares the core ranges of config/fonts.ts for the cut file', async (t) => {
  t.same(
    coreFace,
    coreFontRanges.map(([first, last]) => [first, last]),
  )
})

t.test('the core and the rest of the Latin file are disjoint and together are exactly its range', async (t) => {
  const core = codePoints(coreFace)
  const rest = codePoints(restFace)
  const overlap = [...core].filter((point) => rest.has(point))
  t.same(overlap, [], 'no code point in both faces (each character has one face)')
  const union = new Set([...core, ...rest])
  const latin = codePoints(latinRange)
  t.same(
    [...latin].filter((point) => !union.has(point)),
    [],
    'every code point of the Latin file is still covered',
  )
  t.same(
    [...union].filter((point) => !latin.has(point)),
    [],
    'no code point outside the Latin file is claimed',
  )
})

t.test('every character of every public page that Inter Latin draws is in the core subset', async (t) => {
  const { app } = await build(t)
  const sitemap = await app.inject({ method: 'GET', url: '/sitemap-0.xml' })
  t.equal(sitemap.statusCode, 200)
  const paths = [...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1]!).pathname)
  t.ok(paths.length >= 5, `the sitemap lists the public pages (${paths.length})`)
  for (const pathname of ['/no-such-page', ...paths]) {
    const page = await app.inject({ method: 'GET', url: pathname })
    const outside = new Set<string>()
    for (const character of page.body) {
      const point = character.codePointAt(0)!
      // Line breaks and tabs are white space: never drawn from a font.
      if (point < 0x20) continue
      if (inRanges(latinRange, point) && !inRanges(coreFontRanges, point))
        outside.add(`U+${point.toString(16).toUpperCase()}`)
    }
    t.same([...outside], [], `${pathname}: no character needs the rest of the Latin file`)
  }
})

t.test('the cut is the same for the same inputs (stable asset names across builds) and smaller', async (t) => {
  const latin = readFileSync(latinFile)
  const [first, second] = await Promise.all([
    subsetFont(latin, rangesText(coreFontRanges), { targetFormat: 'woff2' }),
    subsetFont(latin, rangesText(coreFontRanges), { targetFormat: 'woff2' }),
  ])
  t.ok(first.equals(second), 'byte for byte')
  t.ok(first.length < latin.length * 0.7, `${first.length} B cut from ${latin.length} B`)
  t.equal(first.subarray(0, 4).toString('latin1'), 'wOF2', 'a woff2 file')
})
