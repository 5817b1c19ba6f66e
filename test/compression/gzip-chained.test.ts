/**
 * Kept gzip parts compressed with what precedes them as their dictionary (src/compression/gzip-segments.ts), the
 * streamed pieces that refer back to what was sent (src/compression/pieces.ts), and the openings of streamed
 * documents kept compressed (src/delivery/kept-openings.ts): every member decodes to exactly the text, for any bytes of
 * the lengths the parts were compressed for, and the back references pay.
 */
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { caches } from '../../config/caches.ts'
import { compression } from '../../config/compression.ts'
import {
  compressSegments,
  gzipStartWithInsertions,
  gzipTrailer,
  gzipWithInsertions,
} from '../../src/compression/gzip-segments.ts'
import { gzipPieces } from '../../src/compression/pieces.ts'
import { KeptOpenings } from '../../src/delivery/kept-openings.ts'
import { compileTemplate } from '../../src/render/template.ts'

const css = '.site-header{display:flex}.brand{font-weight:700}.lead{font-size:1.25rem}'.repeat(20)
const parts = [
  `<!doctype html><html><head><style`,
  `>${css}</style><script type="module"`,
  '>import "/entry.js"</script>',
  '</head><body class="site-header brand lead">',
]
const nonceAttribute = (nonce: string) => Buffer.from(` nonce="${nonce}"`)
const nonce = () => randomBytes(16).toString('base64')

t.test('parts chained for a gap length decode right with any bytes of that length', async (t) => {
  const gap = nonceAttribute(nonce()).length
  const chained = compressSegments(
    parts.map((part) => Buffer.from(part)),
    9,
    parts.map(() => gap),
  )
  const alone = compressSegments(
    parts.map((part) => Buffer.from(part)),
    9,
  )
  t.same(
    chained.gapLengths,
    parts.map(() => gap),
  )
  for (let round = 0; round < 20; round++) {
    const between = nonceAttribute(nonce())
    t.equal(gunzipSync(gzipWithInsertions(chained, between)).toString(), parts.join(between.toString()))
  }
  // Bytes that match the text around them: a reference into the gap would now decode to the wrong text.
  const lookalike = Buffer.from(' nonce="</style><script type="module"'.slice(0, gap))
  t.equal(
    gunzipSync(gzipWithInsertions(chained, lookalike)).toString(),
    parts.join(lookalike.toString()),
    'gap bytes that repeat the text',
  )
  t.ok(
    chained.compressedLength < alone.compressedLength,
    `chained ${chained.compressedLength} B, alone ${alone.compressedLength} B`,
  )
})

t.test('insertions of another length are refused; a part holding NUL is compressed alone', async (t) => {
  const chained = compressSegments(
    parts.map((part) => Buffer.from(part)),
    9,
    parts.map(() => 33),
  )
  t.throws(() => gzipWithInsertions(chained, Buffer.alloc(0)), /compressed for 33 bytes before it, not 0/)
  const withNul = compressSegments([Buffer.from('a\0b'), Buffer.from('a\0b')], 9, [0, 5])
  t.equal(withNul.gapLengths, undefined)
  t.equal(gunzipSync(gzipWithInsertions(withNul, Buffer.from('xy'))).toString(), 'a\0bxya\0b')
})

t.test('a different gap before the first part (head tags) and the rest (nonces)', async (t) => {
  const head = Buffer.from(
    '<meta name="traceparent" content="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01">',
  )
  const between = nonceAttribute(nonce())
  const gaps = parts.map((_part, index) => (index === 1 ? head.length : between.length))
  const chained = compressSegments(
    parts.map((part) => Buffer.from(part)),
    9,
    gaps,
  )
  const text = parts[0] + head.toString() + parts.slice(1).join(between.toString())
  t.equal(gunzipSync(gzipWithInsertions(chained, between, head)).toString(), text)
})

t.test('streamed pieces refer back to what was sent before them, and decode to the whole', async (t) => {
  const pieces = [
    parts.join(''),
    '<main class="lead">' + css.slice(0, 300),
    '</main>',
    '',
    '<footer class="site-header">x</footer>',
  ]
  const coding = gzipPieces()
  const member = Buffer.concat([
    coding.start!,
    ...pieces.map((piece) => coding.encode(Buffer.from(piece))),
    coding.end()!,
  ])
  t.equal(gunzipSync(member).toString(), pieces.join(''))
  const second = gzipPieces().encode(Buffer.from(pieces[1]!))
  const afterFirst = gzipPieces()
  afterFirst.encode(Buffer.from(pieces[0]!))
  t.ok(afterFirst.encode(Buffer.from(pieces[1]!)).length < second.length, 'a piece after others is smaller than alone')
  const long = 'q'.repeat(compression.pieceDictionaryBytes * 3)
  const coding2 = gzipPieces()
  const member2 = Buffer.concat([
    coding2.start!,
    coding2.encode(Buffer.from(long)),
    coding2.encode(Buffer.from(long + 'r')),
    coding2.end()!,
  ])
  t.equal(gunzipSync(member2).toString(), long + long + 'r', 'pieces longer than the dictionary')
})

t.test('a kept start continues with pieces: one member', async (t) => {
  const between = nonceAttribute(nonce())
  const segments = compressSegments(
    parts.map((part) => Buffer.from(part)),
    9,
    parts.map(() => between.length),
  )
  const start = gzipStartWithInsertions(segments, between)
  const sent = Buffer.from(parts.join(between.toString()))
  const coding = gzipPieces(start, sent)
  const member = Buffer.concat([
    coding.start!,
    coding.encode(Buffer.from('<p class="brand lead">hi</p>')),
    coding.end()!,
  ])
  t.equal(gunzipSync(member).toString(), sent.toString() + '<p class="brand lead">hi</p>')
  t.equal(gzipTrailer(start.crc, start.length).length, 10)
})

t.test('kept openings: one per head, least recently used out first, same bytes as the template writes', async (t) => {
  const source = `<!doctype html><html><head><!--courier-head--><style nonce="__COURIER_NONCE__">${css}</style><script type="module" nonce="__COURIER_NONCE__" src="/e.js"></script></head><body><div id="root"><!--courier-app--></div><!--courier-state--></body></html>`
  const template = compileTemplate(source, '__DATA__', 'dpl-1')
  const openings = new KeptOpenings({ ...caches.keptOpenings, maxEntries: 2 })
  for (const [title, n, tags] of [
    ['A', nonce(), ''],
    ['A', undefined, ''],
    ['B', nonce(), '<meta name="traceparent" content="x">'],
    ['A', nonce(), ''],
  ] as const) {
    const kept = openings.gzipStart(template, { title }, n, tags)
    if (!kept) throw new Error('not kept')
    const expected = template.open({ title }, n, tags)
    t.equal(kept.sent.toString(), expected, `sent: ${title}, nonce ${n ? 'given' : 'none'}`)
    t.equal(
      gunzipSync(Buffer.concat([kept.start.bytes, gzipTrailer(kept.start.crc, kept.start.length)])).toString(),
      expected,
    )
  }
  t.equal(openings.size(template), 2)
  openings.gzipStart(template, { title: 'C' }, nonce(), '')
  t.equal(openings.size(template), 2, 'bounded')
})
