import t from 'tap'
import { readdir } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createZstdDecompress,
  gunzipSync,
  zstdDecompressSync,
} from 'node:zlib'
import type { LightMyRequestResponse } from 'fastify'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { compression } from '../../config/compression.ts'
import { build } from '../helpers/app.ts'
import { contentWithMoreGuides, guides } from '../helpers/content.ts'
import { publicImagePath, siteWithUnfilteredPage, testGuidePath, testRoutes } from '../helpers/site-pages.ts'
import { listen } from '../helpers/http.ts'

const browser = 'gzip, deflate, br, zstd'

function decoded(response: LightMyRequestResponse): string {
  const encoding = response.headers['content-encoding']
  if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString('utf8')
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString('utf8')
  if (encoding === 'zstd') return zstdDecompressSync(response.rawPayload).toString('utf8')
  return response.body
}

const nonceOf = (response: LightMyRequestResponse) =>
  /'nonce-([^']+)'/.exec(String(response.headers['content-security-policy']))?.[1]
const withoutNonce = (text: string) => text.replace(/ nonce="[^"]*"/g, '')

t.test('documents: compressed as the client accepts, the same page, its own nonce matching the CSP', async (t) => {
  // Documents of every kind: a kept page, a kept page on a path the filter leaves alone, a partly prerendered one (its
  // holes streamed), the 404 page; the test build's, whatever pages the site has.
  const { site, path: unfiltered } = await siteWithUnfilteredPage()
  const { app } = await build(t, testRoutes, { site })
  const streamed = '/__test/partial'
  for (const url of ['/', testGuidePath(guides[0]!.slug), unfiltered, streamed, '/no-such-page']) {
    const plain = await app.inject(url)
    t.equal(plain.headers['content-encoding'], undefined, `${url}: no Accept-Encoding, no coding`)
    t.match(plain.headers.vary, /accept-encoding/i, `${url}: Vary`)
    for (const [acceptEncoding, expected] of [
      [browser, 'gzip'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['zstd', 'zstd'],
      ['gzip;q=0, br;q=0', undefined],
    ] as const) {
      const response = await app.inject({ url, headers: { 'accept-encoding': acceptEncoding } })
      t.equal(response.statusCode, plain.statusCode, `${url} ${acceptEncoding}: status`)
      t.equal(response.headers['content-encoding'], expected, `${url} ${acceptEncoding}: coding`)
      t.match(response.headers.vary, /accept-encoding/i, `${url} ${acceptEncoding}: Vary`)
      const body = decoded(response)
      if (url !== streamed)
        t.equal(withoutNonce(body), withoutNonce(plain.body), `${url} ${acceptEncoding}: the same document`)
      else t.match(body, '</html>', `${url} ${acceptEncoding}: a whole document`)
      const nonce = nonceOf(response)
      if (url === unfiltered) {
        t.notMatch(body, ' nonce="', 'an unfiltered page has no nonce, compressed too')
        continue
      }
      const nonces = new Set([...body.matchAll(/ nonce="([^"]+)"/g)].map((match) => match[1]))
      t.same([...nonces], [nonce], `${url} ${acceptEncoding}: every nonce is this response's CSP nonce`)
      if (response.headers['content-length'] !== undefined) {
        t.equal(
          Number(response.headers['content-length']),
          response.rawPayload.length,
          `${url} ${acceptEncoding}: length of the bytes sent`,
        )
      }
    }
  }
})

t.test('HEAD answers the headers GET does, compressed the same way, without a body', async (t) => {
  const { app } = await build(t)
  for (const url of ['/', '/no-such-page', `/_next/data/${app.deploymentId}/index.json`]) {
    const get = await app.inject({ url, headers: { 'accept-encoding': browser } })
    const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': browser } })
    t.equal(head.statusCode, get.statusCode, url)
    t.equal(head.headers['content-encoding'], get.headers['content-encoding'], `${url}: coding`)
    t.equal(head.headers['content-length'], get.headers['content-length'], `${url}: length`)
    t.equal(head.headers.vary, get.headers.vary, `${url}: Vary`)
    t.equal(head.body, '', `${url}: no body`)
  }
})

t.test('static page data: compressed once per coding, an ETag per coding, 304 for any of them', async (t) => {
  const { app } = await build(t)
  const url = `/_next/data/${app.deploymentId}/index.json`
  const headers = { 'x-deployment-id': app.deploymentId }
  const plain = await app.inject({ url, headers })
  const br = await app.inject({ url, headers: { ...headers, 'accept-encoding': 'br' } })
  const gzip = await app.inject({ url, headers: { ...headers, 'accept-encoding': 'gzip' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(decoded(br), plain.body)
  t.equal(decoded(gzip), plain.body)
  const tags = [plain.headers.etag, br.headers.etag, gzip.headers.etag]
  t.equal(new Set(tags).size, 3, `three codings, three tags: ${tags.join(' ')}`)
  t.match(br.headers.etag, /^"[A-Za-z0-9_-]{27}-br"$/)
  for (const tag of tags) {
    const revalidated = await app.inject({
      url,
      headers: { ...headers, 'accept-encoding': 'br', 'if-none-match': String(tag) },
    })
    t.equal(revalidated.statusCode, 304, `If-None-Match ${tag}`)
    t.equal(revalidated.headers.etag, br.headers.etag, 'the 304 names the tag of what it would have sent')
  }
  const again = await app.inject({ url, headers: { ...headers, 'accept-encoding': 'br' } })
  t.ok(again.rawPayload.equals(br.rawPayload), 'the same bytes: compressed once and kept')
})

t.test('small answers go as they are, unless identity is refused; images and fonts are never encoded', async (t) => {
  // Content with 40 more guides: a sitemap well over the threshold, whatever other pages the site has.
  const { app } = await build(t, { CONTENT_DIR: await contentWithMoreGuides(t, 40) })
  const health = await app.inject({ url: '/api/health', headers: { 'accept-encoding': 'br' } })
  t.equal(health.headers['content-encoding'], undefined, 'under 1 kB: as it is')
  t.match(health.headers.vary, /accept-encoding/i)
  const refused = await app.inject({ url: '/api/health', headers: { 'accept-encoding': 'identity;q=0, gzip' } })
  t.equal(refused.headers['content-encoding'], 'gzip', 'identity;q=0: compressed even when small')
  t.same(JSON.parse(decoded(refused)), JSON.parse(health.body))
  const sitemap = await app.inject({ url: '/sitemap-0.xml', headers: { 'accept-encoding': 'br' } })
  t.ok(
    Buffer.byteLength((await app.inject('/sitemap-0.xml')).body) > compression.minBytes,
    'the sitemap is over the threshold',
  )
  t.equal(sitemap.headers['content-encoding'], 'br', 'a sitemap over 1 kB is compressed')
  t.equal(decoded(sitemap), (await app.inject('/sitemap-0.xml')).body)
  const image = await app.inject({
    url: `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640&q=75`,
    headers: { accept: 'image/webp', 'accept-encoding': browser },
  })
  t.equal(image.statusCode, 200)
  t.equal(image.headers['content-encoding'], undefined, 'an image goes as it is')
  const favicon = await app.inject({ url: '/favicon.ico', headers: { 'accept-encoding': browser } })
  t.equal(favicon.headers['content-encoding'], undefined, 'so does the icon')
})

t.test('built assets: served compressed at build time, never per request', async (t) => {
  const { app, config } = await build(t)
  const html = (await app.inject('/')).body
  const assets = [...html.matchAll(/(?:src|href)="(\/_next\/static\/chunks\/[^"]+)"/g)].map((match) => match[1]!)
  const script = entryLoaderUrls(html).entries[0]!
  // The document carries the stylesheet inline; its file is still served, for a browser that asks for it.
  const styleFile = (await readdir(path.join(config.distDir, 'client', 'chunks'))).find((name) =>
    name.endsWith('.css'),
  )!
  const style = `/_next/static/chunks/${styleFile}`
  const font = assets.find((asset) => /\.woff2\?/.test(asset))!
  for (const asset of [script, style]) {
    const plain = await app.inject(asset)
    for (const coding of ['br', 'gzip', 'zstd'] as const) {
      const response = await app.inject({ url: asset, headers: { 'accept-encoding': coding } })
      t.equal(response.statusCode, 200, `${asset} ${coding}`)
      t.equal(response.headers['content-encoding'], coding, `${asset} ${coding}`)
      t.match(response.headers.vary, /accept-encoding/i)
      t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable')
      t.equal(Number(response.headers['content-length']), response.rawPayload.length)
      t.equal(decoded(response), plain.body, `${asset} ${coding}: the same file`)
    }
  }
  const fontResponse = await app.inject({ url: font, headers: { 'accept-encoding': browser } })
  t.equal(fontResponse.headers['content-encoding'], undefined, 'woff2 is compressed already')
})

/** GET over a real socket, decompressing as the bytes arrive: when each piece of the document could be read. */
function streamDecoded(
  url: string,
  acceptEncoding: 'br' | 'gzip' | 'zstd',
): Promise<{ coding: string | undefined; pieces: Array<{ text: string; at: number }> }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const request = http.get(url, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      const coding = response.headers['content-encoding']
      const decoder =
        coding === 'br' ? createBrotliDecompress() : coding === 'zstd' ? createZstdDecompress() : createGunzip()
      const pieces: Array<{ text: string; at: number }> = []
      decoder.on('data', (chunk: Buffer) =>
        pieces.push({ text: chunk.toString('utf8'), at: performance.now() - started }),
      )
      decoder.on('end', () => resolve({ coding, pieces }))
      decoder.on('error', reject)
      response.pipe(decoder)
    })
    request.on('error', reject)
    request.setTimeout(15_000, () => request.destroy(new Error('test request timed out')))
  })
}

t.test('a streamed page stays streamed through compression: the shell arrives before the slow boundary', async (t) => {
  const { app } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const origin = await listen(app)
  for (const coding of ['br', 'gzip', 'zstd'] as const) {
    const { coding: sent, pieces } = await streamDecoded(`${origin}/__test/slow?delay=1500`, coding)
    t.equal(sent, coding, `${coding}: sent in the coding asked for`)
    const text = pieces.map((piece) => piece.text).join('')
    const fallbackPiece = pieces.findIndex((piece) => piece.text.includes('id="slow-fallback"'))
    const resolvedPiece = pieces.findIndex((piece) => piece.text.includes('Resolved after'))
    t.ok(
      fallbackPiece >= 0 && resolvedPiece > fallbackPiece,
      `${coding}: the shell is readable in a piece before the boundary's`,
    )
    t.ok(
      pieces[resolvedPiece]!.at - pieces[fallbackPiece]!.at > 500,
      `${coding}: the shell did not wait for the boundary`,
    )
    t.match(text, /<\/html>\s*$/, `${coding}: the whole document`)
  }
})
