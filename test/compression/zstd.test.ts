/**
 * zstd for every kind of answer Courier compresses (docs/compression.md "zstd"): decoded with node:zlib and with the
 * `zstd` command-line tool, chosen by q-values and by each kind's order among codings weighed alike
 * (config/compression.ts `codingPreference`), HEAD, and the ETag of each coding.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { zstdDecompressSync } from 'node:zlib'
import type { LightMyRequestResponse } from 'fastify'
import { compression } from '../../config/compression.ts'
import { compressFrames, rawFrame, zstdWithInsertions } from '../../src/compression/zstd-frames.ts'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { findCodedAssets } from '../../src/delivery/coded-assets.ts'
import { build } from '../helpers/app.ts'
import { testRoutes } from '../helpers/site-pages.ts'
import { contentWithMoreGuides } from '../helpers/content.ts'

const browser = 'gzip, deflate, br, zstd'

/** The bytes as the zstd tool decodes them (`zstd -d`): a decoder other than the one Node links. */
function zstdTool(bytes: Buffer): Buffer {
  return execFileSync('zstd', ['-d', '-q', '-c'], { input: bytes, maxBuffer: 16 * 1024 * 1024 })
}

const nonceOf = (response: LightMyRequestResponse) =>
  /'nonce-([^']+)'/.exec(String(response.headers['content-security-policy']))?.[1]
const withoutNonce = (text: string) => text.replace(/ nonce="[^"]*"/g, '')

t.test('zstd frames: any insertion between any parts decodes to the joined text, in both decoders', async (t) => {
  const texts = ['<p a', '>x</p><p b', '>', '', 'y'.repeat(140_000) + 'z', '']
  const frames = compressFrames(
    texts.map((text) => Buffer.from(text)),
    compression.zstdLevelOnce,
  )
  for (const between of [
    '',
    ' nonce="abc"',
    'n'.repeat(255),
    'n'.repeat(256),
    'n'.repeat(70_000),
    'n'.repeat(200_000),
  ]) {
    for (const first of [undefined, '<meta name="traceparent" content="00-x">', '']) {
      const bytes = zstdWithInsertions(
        frames,
        Buffer.from(between),
        first === undefined ? undefined : Buffer.from(first),
      )
      const expected = texts
        .map((text, index) => (index === 0 ? text : `${index === 1 && first !== undefined ? first : between}${text}`))
        .join('')
      t.equal(
        zstdDecompressSync(bytes).toString(),
        expected,
        `node: ${between.length} B between, first ${first?.length}`,
      )
      t.equal(zstdTool(bytes).toString(), expected, `zstd -d: ${between.length} B between, first ${first?.length}`)
    }
  }
  t.equal(rawFrame(Buffer.alloc(0)).length, 0, 'nothing to insert: no frame')
})

/** The app over content with 40 more guides: its sitemap, an answer compressed per request, is well over the
 * compression threshold (config/compression.ts) whatever other pages the site has. */
async function buildWithLargeSitemap(t: Parameters<typeof build>[0]) {
  return build(t, { ...testRoutes, CONTENT_DIR: await contentWithMoreGuides(t, 40) })
}

/** The test build's partly prerendered page (test/site/pages/): its holes are streamed per request. */
const streamed = '/__test/partial'

/** Every kind of answer Courier compresses, the plain answer to compare with, and how the bodies compare. */
async function kinds(app: Awaited<ReturnType<typeof build>>['app']) {
  const data = `/_next/data/${app.deploymentId}/index.json`
  const home = (await app.inject('/')).body
  const entry = entryLoaderUrls(home).entries[0]!
  return [
    { kind: 'a kept document', url: '/', preference: compression.codingPreference.keptDocument, document: true },
    {
      kind: 'a kept error document',
      url: '/no-such-page',
      preference: compression.codingPreference.keptDocument,
      document: true,
    },
    {
      kind: 'a streamed document',
      url: streamed,
      preference: compression.codingPreference.streamedDocument,
      document: true,
    },
    { kind: 'kept page data', url: data, preference: compression.codingPreference.pageData, document: false },
    {
      kind: 'an answer compressed per request',
      url: '/sitemap-0.xml',
      preference: compression.codingPreference.perRequest,
      document: false,
    },
    { kind: 'the entry chunk', url: entry, preference: compression.codingPreference.builtAsset, document: false },
  ]
}

t.test('every kind in zstd: the same content, decoded by node:zlib and by zstd -d, with Vary', async (t) => {
  const { app } = await buildWithLargeSitemap(t)
  for (const { kind, url, document } of await kinds(app)) {
    const plain = await app.inject(url)
    const response = await app.inject({ url, headers: { 'accept-encoding': 'zstd' } })
    t.equal(response.statusCode, plain.statusCode, `${kind}: status`)
    t.equal(response.headers['content-encoding'], 'zstd', `${kind}: zstd`)
    t.match(response.headers.vary, /accept-encoding/i, `${kind}: Vary`)
    t.equal(response.headers['content-type'], plain.headers['content-type'], `${kind}: the same type`)
    const byNode = zstdDecompressSync(response.rawPayload).toString('utf8')
    const byTool = zstdTool(response.rawPayload).toString('utf8')
    t.equal(byTool, byNode, `${kind}: zstd -d decodes what node:zlib does`)
    if (response.headers['content-length'] !== undefined) {
      t.equal(
        Number(response.headers['content-length']),
        response.rawPayload.length,
        `${kind}: the length of the bytes sent`,
      )
    }
    if (url === streamed) {
      t.match(byNode, /<\/html>\s*$/, `${kind}: a whole document`)
      continue
    }
    t.equal(
      document ? withoutNonce(byNode) : byNode,
      document ? withoutNonce(plain.body) : plain.body,
      `${kind}: the same content`,
    )
    if (document) {
      const nonces = new Set([...byNode.matchAll(/ nonce="([^"]+)"/g)].map((match) => match[1]))
      t.same([...nonces], [nonceOf(response)], `${kind}: every nonce is this response's CSP nonce`)
    }
  }
})

t.test('q-values choose, and each kind breaks ties in its measured order', async (t) => {
  const { app } = await buildWithLargeSitemap(t)
  for (const { kind, url, preference } of await kinds(app)) {
    const cases: Array<[string, string | undefined]> = [
      [browser, preference[0]],
      // `*` names every coding, built assets' too (the sender negotiates them; nginx leaves `*` to an instance).
      ['*', preference[0]],
      [`${browser.replace('zstd', 'zstd;q=0')}`, preference.filter((coding) => coding !== 'zstd')[0]],
      ['zstd;q=0', undefined],
      ['br;q=1, zstd;q=0.5', 'br'],
      ['br;q=0.5, gzip;q=0.5, zstd', 'zstd'],
      ['zstd, gzip;q=0.9', 'zstd'],
    ]
    for (const [acceptEncoding, expected] of cases) {
      const response = await app.inject({ url, headers: { 'accept-encoding': acceptEncoding } })
      t.equal(response.statusCode, 200 + (url === '/no-such-page' ? 204 : 0), `${kind} ${acceptEncoding}: status`)
      t.equal(response.headers['content-encoding'], expected, `${kind}, ${acceptEncoding}: ${expected ?? 'as it is'}`)
    }
  }
})

t.test('HEAD in zstd answers the headers GET does, without a body', async (t) => {
  const { app } = await buildWithLargeSitemap(t)
  for (const { kind, url } of await kinds(app)) {
    if (url === streamed) continue // streamed: no length to compare
    const get = await app.inject({ url, headers: { 'accept-encoding': 'zstd' } })
    const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'zstd' } })
    t.equal(head.statusCode, get.statusCode, `${kind}: status`)
    t.equal(head.headers['content-encoding'], 'zstd', `${kind}: coding`)
    t.equal(head.headers['content-length'], get.headers['content-length'], `${kind}: length`)
    t.equal(head.headers['content-type'], get.headers['content-type'], `${kind}: type`)
    t.equal(head.headers.vary, get.headers.vary, `${kind}: Vary`)
    t.equal(head.body, '', `${kind}: no body`)
  }
})

t.test('kept page data in zstd: compressed once, its own ETag, 304 for the tag of any coding', async (t) => {
  const { app } = await build(t)
  const url = `/_next/data/${app.deploymentId}/index.json`
  const zstd = await app.inject({ url, headers: { 'accept-encoding': 'zstd' } })
  const br = await app.inject({ url, headers: { 'accept-encoding': 'br' } })
  const plain = await app.inject(url)
  t.match(zstd.headers.etag, /^"[A-Za-z0-9_-]{27}-zstd"$/, 'the tag of the zstd bytes')
  t.equal(
    zstd.headers.etag,
    `${String(plain.headers.etag).slice(0, -1)}-zstd"`,
    'the representation tag, suffixed as for br and gzip',
  )
  t.not(zstd.headers.etag, br.headers.etag)
  for (const tag of [zstd.headers.etag, br.headers.etag, plain.headers.etag]) {
    const revalidated = await app.inject({ url, headers: { 'accept-encoding': 'zstd', 'if-none-match': String(tag) } })
    t.equal(revalidated.statusCode, 304, `If-None-Match ${tag}`)
    t.equal(revalidated.headers.etag, zstd.headers.etag, 'the 304 names the tag of what it would have sent')
    t.equal(revalidated.rawPayload.length, 0)
  }
  const again = await app.inject({ url, headers: { 'accept-encoding': 'zstd' } })
  t.ok(again.rawPayload.equals(zstd.rawPayload), 'the same bytes: compressed once and kept')
})

t.test(
  'a kept document in zstd is its frames compressed once: only the nonce differs between two responses',
  async (t) => {
    const { app } = await build(t)
    const first = await app.inject({ url: '/', headers: { 'accept-encoding': 'zstd' } })
    const second = await app.inject({ url: '/', headers: { 'accept-encoding': 'zstd' } })
    t.not(nonceOf(first), nonceOf(second))
    const blank = (response: LightMyRequestResponse) =>
      response.rawPayload.toString('latin1').replaceAll(nonceOf(response)!, '<nonce>')
    t.equal(blank(first), blank(second), 'the bytes on the wire differ by the nonce alone (stored raw)')
  },
)

t.test(
  'a built file without a .zst (a font, a chunk too small to be worth it) goes as the other codings allow',
  async (t) => {
    const { app, config } = await build(t)
    const files = await readdir(path.join(config.distDir, 'client', 'chunks'))
    const small = files.filter((name) => /\.(?:js|css|woff2)$/.test(name) && !files.includes(`${name}.zst`))
    t.ok(small.length > 0, 'the build has files without a .zst beside them')
    for (const name of small) {
      const url = `/_next/static/chunks/${name}`
      const plain = await app.inject(url)
      for (const [acceptEncoding, expected] of [
        ['zstd', undefined],
        ['zstd, gzip;q=0.5', undefined],
      ] as const) {
        const response = await app.inject({ url, headers: { 'accept-encoding': acceptEncoding } })
        t.equal(response.statusCode, 200, `${name} ${acceptEncoding}`)
        t.equal(
          response.headers['content-encoding'],
          expected,
          `${name} ${acceptEncoding}: no coded file, the file as it is`,
        )
        t.equal(response.body, plain.body)
      }
    }
  },
)

t.test(
  'a streamed document in zstd declares a window of 64 KiB at most: what a decoder and the encoder hold',
  async (t) => {
    const { app } = await build(t, testRoutes)
    const response = await app.inject({ url: streamed, headers: { 'accept-encoding': 'zstd' } })
    t.equal(response.headers['content-encoding'], 'zstd')
    const bytes = response.rawPayload
    t.same([...bytes.subarray(0, 4)], [0x28, 0xb5, 0x2f, 0xfd], 'a zstd frame')
    const descriptor = bytes[4]!
    t.equal(
      descriptor & 0x20,
      0,
      'not single-segment: the size is not known when the frame starts, so it names a window',
    )
    // Window_Descriptor (RFC 8878 section 3.1.1.1.2): exponent in the high 5 bits, mantissa in the low 3.
    const windowDescriptor = bytes[5]!
    const windowBase = 2 ** (10 + (windowDescriptor >> 3))
    const windowSize = windowBase + (windowBase / 8) * (windowDescriptor & 0x07)
    t.ok(windowSize <= 2 ** compression.zstdStreamWindowLog, `window ${windowSize} B`)
    t.equal(compression.zstdStreamWindowLog, 16)
  },
)

t.test(
  'the precompressed files served are those of the build: compressible types, no dotfile, by the URL of the file each codes',
  async (t) => {
    const clientDir = await mkdtemp(path.join(tmpdir(), 'courier-coded-assets-'))
    t.teardown(() => rm(clientDir, { recursive: true, force: true }))
    await mkdir(path.join(clientDir, 'chunks', '.vite'), { recursive: true })
    const names = [
      'chunks/a.js.zst',
      'chunks/a.js.br',
      'chunks/a.js.gz',
      'chunks/b.css.zst',
      'chunks/.hidden.js.zst',
      'chunks/.vite/manifest.json.br',
      'chunks/font.woff2.zst',
      'chunks/photo.png.gz',
      'chunks/c.js',
      'chunks/d.js.bz2',
    ]
    for (const name of names) await writeFile(path.join(clientDir, name), 'x'.repeat(10))
    const assets = findCodedAssets(clientDir)
    t.same([...assets.keys()].sort(), ['/_next/static/chunks/a.js', '/_next/static/chunks/b.css'])
    const coded = (suffix: string) => ({
      file: path.join(clientDir, 'chunks', `a.js${suffix}`),
      bytes: 10,
      type: 'application/javascript; charset=utf-8',
    })
    t.same(assets.get('/_next/static/chunks/a.js'), { zstd: coded('.zst'), br: coded('.br'), gzip: coded('.gz') })
    t.same(Object.keys(assets.get('/_next/static/chunks/b.css')!), ['zstd'], 'only the codings written')
    t.equal(findCodedAssets(path.join(clientDir, 'no-such-folder')).size, 0, 'no build: nothing to serve')
  },
)
