import { readdirSync, unlinkSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import sharp from 'sharp'
import t, { type Test } from 'tap'
import { images } from '../../config/images.ts'
import { build } from '../helpers/app.ts'
import { animatedPng, buildImageApp, jpegOf, pixelBombPng, temporaryFolder } from '../helpers/images.ts'
import { publicImagePath } from '../helpers/site-pages.ts'

const allowedWidths = [...images.imageSizes, ...images.deviceSizes]
const photo = await jpegOf(800, 600)
const png = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#3366ff80' } })
  .png()
  .toBuffer()
const svg =
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
const files = {
  'images/photo.jpg': photo,
  'images/graphic.png': png,
  'images/fake.jpg': 'this is plain text, named like a JPEG',
  'images/logo.svg': svg,
  'images/logo-in-disguise.png': svg,
  'bomb.png': pixelBombPng(14000, 14000),
  'images/truncated.jpg': photo.subarray(0, Math.floor(photo.length / 2)),
}

const q = encodeURIComponent
/** Safari 12's Accept for images: no WebP, no AVIF (both only from Safari 14 and 16). */
const safari12Accept = 'image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5'
const optimizer = (url: string, rest = '&w=640') => `/_next/image?url=${q(url)}${rest}`

interface Refusal {
  name: string
  path: string
  status: number
  code: string
  message: string | RegExp
}

const widthMessage = `w must be one of the allowed widths: ${[...allowedWidths].sort((a, b) => a - b).join(', ')}`
const refusals: Refusal[] = [
  {
    name: 'missing url',
    path: '/_next/image?w=640',
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'url is required',
  },
  {
    name: 'empty url',
    path: '/_next/image?url=&w=640',
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'url must not be empty',
  },
  {
    name: 'duplicated url',
    path: '/_next/image?url=/images/photo.jpg&url=/images/graphic.png&w=640',
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'url must be given once',
  },
  {
    name: 'url over 3072 characters',
    path: optimizer(`/images/${'a'.repeat(3070)}.jpg`),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'url must be at most 3072 characters',
  },
  {
    name: 'protocol-relative url',
    path: optimizer('//evil.example/images/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: /^url must not be protocol-relative/,
  },
  {
    name: 'protocol-relative url with a backslash',
    path: optimizer('/\\evil.example/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: /^url must not be protocol-relative/,
  },
  ...[
    'ftp://files.example/a.jpg',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:image/png;base64,iVBORw0KGgo=',
  ].map((url): Refusal => ({
    name: `non-http scheme ${url.split(':')[0]}`,
    path: optimizer(url),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: /^url must use http or https, not /,
  })),
  {
    name: 'a relative url without a leading slash',
    path: optimizer('images/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must be a local path starting with / or an absolute http(s) URL',
  },
  ...[
    '/_next/image?url=/images/photo.jpg&w=64',
    '/_next%2Fimage?url=/images/photo.jpg&w=64',
    '/_next/%69mage',
    '/_NEXT/IMAGE',
    '//_next/image',
  ].map((url): Refusal => ({
    name: `url pointing at the optimizer: ${url}`,
    path: optimizer(url),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: url.startsWith('//')
      ? /^url must not be protocol-relative/
      : 'url must not point at the image optimizer itself',
  })),
  {
    name: 'an absolute url pointing at the optimizer',
    path: optimizer('https://courier.example/_next/%69mage?url=/a.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not point at the image optimizer itself',
  },
  {
    name: 'a remote host outside the (empty) allow-list',
    path: optimizer('https://images.example/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url host images.example is not in the allow-list of remote image origins',
  },
  {
    name: 'credentials in a remote url',
    path: optimizer('https://user:secret@images.example/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not carry credentials',
  },
  ...[
    '/../package.json',
    '/images/../../package.json',
    '/images/%2e%2e/%2e%2e/package.json',
    '/images/%252e%252e/package.json',
    '/images/..%2f..%2fpackage.json',
    '/images/./photo.jpg',
  ].map((url): Refusal => ({
    name: `traversal ${url}`,
    path: optimizer(url),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not traverse out of the public folder',
  })),
  {
    name: 'traversal in the raw query string (url=/images/%2e%2e/...)',
    path: '/_next/image?url=/images/%2e%2e/%2e%2e/package.json&w=640',
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not traverse out of the public folder',
  },
  {
    name: 'a hidden file',
    path: optimizer('/.env'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not name a hidden file',
  },
  {
    name: 'a backslash in a local path',
    path: optimizer('/images\\..\\..\\package.json'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must not hold backslashes or control characters',
  },
  {
    name: 'a malformed percent-escape',
    path: optimizer('/images/%E0%A4%A.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url holds a malformed percent-escape',
  },
  {
    name: 'missing w',
    path: optimizer('/images/photo.jpg', ''),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'w is required',
  },
  ...['641', '0', '-1', 'abc', '640.5', '', '1e3'].map((w): Refusal => ({
    name: `w=${w}`,
    path: optimizer('/images/photo.jpg', `&w=${w}`),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: widthMessage,
  })),
  {
    name: 'duplicated w',
    path: optimizer('/images/photo.jpg', '&w=640&w=640'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'w must be given once',
  },
  ...['0', '101', 'abc', '75.5', '-5', '60', '74', '100'].map((quality): Refusal => ({
    name: `q=${quality}`,
    path: optimizer('/images/photo.jpg', `&w=640&q=${quality}`),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'q must be one of the allowed qualities: 75',
  })),
  {
    name: 'duplicated q',
    path: optimizer('/images/photo.jpg', '&w=640&q=75&q=75'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'q must be given once',
  },
  ...['/images/photo.jpg?x', '/images/photo.jpg?', '/images/photo.jpg#y', '/images/photo.jpg?w=1#y'].map(
    (url): Refusal => ({
      name: `a local url with a query or fragment: ${url}`,
      path: optimizer(url),
      status: 400,
      code: 'COURIER_ERR_IMAGE_URL_REFUSED',
      message: 'url must not carry a query (?) or fragment (#): a local image is one file',
    }),
  ),
  {
    name: 'a missing file',
    path: optimizer('/images/missing.jpg'),
    status: 404,
    code: 'COURIER_ERR_IMAGE_NOT_FOUND',
    message: 'url /images/missing.jpg was not found',
  },
  {
    name: 'a folder',
    path: optimizer('/images'),
    status: 404,
    code: 'COURIER_ERR_IMAGE_NOT_FOUND',
    message: 'url /images was not found',
  },
  {
    name: 'text named like a JPEG (sniffed, not judged by the extension)',
    path: optimizer('/images/fake.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_NOT_AN_IMAGE',
    message: 'url does not point to an image (JPEG, PNG, GIF, WebP or AVIF)',
  },
  {
    name: 'a truncated JPEG',
    path: optimizer('/images/truncated.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_UNREADABLE',
    message: 'url points to an image that cannot be decoded',
  },
  {
    name: 'SVG (refused by default)',
    path: optimizer('/images/logo.svg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_NOT_AN_IMAGE',
    message: 'url points to an SVG image, which the optimizer refuses (IMAGES_ALLOW_SVG)',
  },
  {
    name: 'SVG named like a PNG',
    path: optimizer('/images/logo-in-disguise.png'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_NOT_AN_IMAGE',
    message: 'url points to an SVG image, which the optimizer refuses (IMAGES_ALLOW_SVG)',
  },
]

t.test('every invalid request is refused with a status, a code and a message naming the parameter', async (t) => {
  const { app, transforms } = await buildImageApp(t, files)
  for (const refusal of refusals) {
    const response = await app.inject(refusal.path)
    const body = response.json() as { statusCode: number; code: string; message: string }
    t.equal(response.statusCode, refusal.status, `${refusal.name}: status`)
    t.match(response.headers['content-type'], /^application\/json/, `${refusal.name}: JSON`)
    t.equal(body.code, refusal.code, `${refusal.name}: code`)
    if (typeof refusal.message === 'string') t.equal(body.message, refusal.message, `${refusal.name}: message`)
    else t.match(body.message, refusal.message, `${refusal.name}: message`)
    t.equal(response.headers['cache-control'], 'no-store', `${refusal.name}: never cached`)
  }
  t.equal(transforms(), 0, 'no refused request produced an image')
})

t.test('a small PNG declaring 14000x14000 pixels fails from its header alone', async (t) => {
  const { app, transforms } = await buildImageApp(t, files)
  const response = await app.inject(optimizer('/bomb.png'))
  t.equal(response.statusCode, 400)
  t.same(response.json(), {
    statusCode: 400,
    code: 'COURIER_ERR_IMAGE_TOO_LARGE',
    error: 'Bad Request',
    message: 'url declares 196000000 pixels; at most 50000000 are decoded',
  })
  t.equal(transforms(), 0)
})

t.test('every allowed width is accepted; the source is never enlarged', async (t) => {
  const { app } = await buildImageApp(t, files)
  for (const width of allowedWidths) {
    const response = await app.inject(optimizer('/images/photo.jpg', `&w=${width}`))
    t.equal(response.statusCode, 200, `w=${width}`)
    const metadata = await sharp(response.rawPayload).metadata()
    t.equal(metadata.width, Math.min(width, 800), `w=${width}: ${Math.min(width, 800)} px wide`)
    t.equal(metadata.height, Math.round((Math.min(width, 800) * 600) / 800), `w=${width}: aspect ratio kept`)
  }
})

t.test('the format follows Accept: AVIF, then WebP, else the source format', async (t) => {
  const { app } = await buildImageApp(t, files)
  const cases = [
    {
      accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8',
      file: 'photo.jpg',
      type: 'image/avif',
      format: 'heif',
      ext: 'avif',
    },
    { accept: 'image/webp,*/*', file: 'photo.jpg', type: 'image/webp', format: 'webp', ext: 'webp' },
    { accept: 'image/avif;q=0,image/webp', file: 'photo.jpg', type: 'image/webp', format: 'webp', ext: 'webp' },
    { accept: '*/*', file: 'photo.jpg', type: 'image/jpeg', format: 'jpeg', ext: 'jpg' },
    { accept: undefined, file: 'photo.jpg', type: 'image/jpeg', format: 'jpeg', ext: 'jpg' },
    { accept: 'image/*', file: 'graphic.png', type: 'image/png', format: 'png', ext: 'png' },
    { accept: 'image/webp', file: 'graphic.png', type: 'image/webp', format: 'webp', ext: 'webp' },
  ]
  for (const { accept, file, type, format, ext } of cases) {
    const response = await app.inject({
      url: optimizer(`/images/${file}`, '&w=256&q=75'),
      headers: accept ? { accept } : {},
    })
    const label = `${file} with Accept ${accept ?? '(none)'}`
    t.equal(response.statusCode, 200, label)
    t.equal(response.headers['content-type'], type, `${label}: ${type}`)
    t.equal((await sharp(response.rawPayload).metadata()).format, format, `${label}: the bytes are ${format}`)
    t.equal(response.headers.vary, 'Accept', `${label}: Vary`)
    t.equal(
      response.headers['content-disposition'],
      `inline; filename="${file.replace(/\.\w+$/, '')}.${ext}"`,
      `${label}: file name`,
    )
    t.equal(
      response.headers['content-security-policy'],
      "script-src 'none'; frame-src 'none'; sandbox;",
      `${label}: CSP`,
    )
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
    t.equal(response.headers['content-length'], String(response.rawPayload.length), `${label}: length`)
  }
})

t.test('SVG is served as it is, sandboxed, when IMAGES_ALLOW_SVG is on', async (t) => {
  const { app } = await buildImageApp(t, files, { allowSvg: true })
  const response = await app.inject({
    url: optimizer('/images/logo.svg'),
    headers: { accept: 'image/avif,image/webp' },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/svg+xml')
  t.equal(response.body, svg)
  t.equal(response.headers['content-security-policy'], "script-src 'none'; frame-src 'none'; sandbox;")
  t.equal(response.headers['content-disposition'], 'inline; filename="logo.svg"')
})

t.test('animated images are served unchanged, in their own format', async (t) => {
  const frame = (colour: string) =>
    sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
      .png()
      .toBuffer()
  const animated = await sharp([await frame('#f00'), await frame('#00f')], { join: { animated: true } })
    .gif()
    .toBuffer()
  const { app } = await buildImageApp(t, { 'images/moving.gif': animated })
  const response = await app.inject({
    url: optimizer('/images/moving.gif', '&w=16'),
    headers: { accept: 'image/avif,image/webp' },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/gif')
  t.same(response.rawPayload, animated, 'the very bytes of the source')
  t.equal(response.headers['content-disposition'], 'inline; filename="moving.gif"')
})

t.test('MISS, then HIT, then STALE once expired; the stale entry is refreshed in the background', async (t) => {
  let clock = Date.UTC(2030, 0, 1)
  const { app, transforms } = await buildImageApp(t, files, { now: () => clock })
  const request = { url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp' } }

  const miss = await app.inject(request)
  t.equal(miss.headers['x-image-cache'], 'MISS')
  t.equal(miss.headers['cache-control'], `public, max-age=${images.minimumCacheTTL}, must-revalidate`)
  t.match(miss.headers.etag, /^"[A-Za-z0-9_-]{27}"$/, 'a strong ETag')

  clock += (images.minimumCacheTTL - 1) * 1000
  const hit = await app.inject(request)
  t.equal(hit.headers['x-image-cache'], 'HIT')
  t.equal(hit.headers.etag, miss.headers.etag)
  t.same(hit.rawPayload, miss.rawPayload, 'the same bytes')
  t.equal(transforms(), 1)

  clock += 2000
  const stale = await app.inject(request)
  t.equal(stale.headers['x-image-cache'], 'STALE', 'expired: served stale at once')
  t.same(stale.rawPayload, miss.rawPayload)
  await t.resolves(
    waitFor(() => transforms() === 2),
    'refreshed in the background',
  )

  const refreshed = await waitForState(() => app.inject(request), 'HIT')
  t.equal(refreshed.headers['x-image-cache'], 'HIT', 'fresh again after the refresh')
  t.equal(transforms(), 2, 'one refresh only')
})

t.test('If-None-Match with the ETag answers 304 without a body', async (t) => {
  const { app } = await buildImageApp(t, files)
  const first = await app.inject({ url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp' } })
  const etag = first.headers.etag as string
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const response = await app.inject({
      url: optimizer('/images/photo.jpg'),
      headers: { accept: 'image/webp', 'if-none-match': ifNoneMatch },
    })
    t.equal(response.statusCode, 304, `If-None-Match: ${ifNoneMatch}`)
    t.equal(response.body, '')
    t.equal(response.headers.etag, etag)
    t.equal(response.headers['x-image-cache'], undefined, 'the cache state goes with a 200 only')
    t.equal(response.headers.vary, 'Accept')
  }
  const changed = await app.inject({
    url: optimizer('/images/photo.jpg'),
    headers: { accept: 'image/webp', 'if-none-match': '"other"' },
  })
  t.equal(changed.statusCode, 200, 'another ETag gets the bytes')
})

t.test('three identical concurrent misses make one transform', async (t) => {
  const { app, transforms } = await buildImageApp(t, files)
  const request = { url: optimizer('/images/photo.jpg', '&w=750'), headers: { accept: 'image/avif' } }
  const responses = await Promise.all([app.inject(request), app.inject(request), app.inject(request)])
  t.same(
    responses.map((response) => response.statusCode),
    [200, 200, 200],
  )
  t.equal(transforms(), 1, 'one transform for three requests')
  t.equal(new Set(responses.map((response) => response.headers.etag)).size, 1, 'all three got the same image')
  const other = await app.inject({ ...request, headers: { accept: 'image/webp' } })
  t.equal(other.headers['x-image-cache'], 'MISS', 'another output type is another entry')
  t.equal(transforms(), 2)
})

t.test('the cache is capped in bytes and evicts the least recently used entry', async (t) => {
  const copies = { 'images/a.jpg': photo, 'images/b.jpg': photo, 'images/c.jpg': photo }
  const probe = await buildImageApp(t, copies)
  const entrySize = (await probe.app.inject(optimizer('/images/a.jpg', '&w=128'))).rawPayload.length
  const { app, cacheDir } = await buildImageApp(t, copies, { limits: { cacheMaxBytes: Math.floor(entrySize * 2.5) } })
  const state = async (name: string) =>
    (await app.inject(optimizer(`/images/${name}`, '&w=128'))).headers['x-image-cache']

  t.equal(await state('a.jpg'), 'MISS')
  t.equal(await state('b.jpg'), 'MISS')
  t.equal(await state('a.jpg'), 'HIT', 'a is now the most recently used')
  t.equal(await state('c.jpg'), 'MISS', 'c pushes the cache over its cap: b goes')
  t.equal(readdirSync(cacheDir).filter((name) => name.endsWith('.entry')).length, 2, 'two entries on disk')
  t.equal(await state('a.jpg'), 'HIT', 'a stayed')
  t.equal(await state('c.jpg'), 'HIT', 'c stayed')
  t.equal(await state('b.jpg'), 'MISS', 'b was evicted')
})

t.test('the disk cache outlives the process: a new instance on the same folder hits', async (t) => {
  const cacheDir = path.join(temporaryFolder(t, 'cache'), 'shared')
  const first = await buildImageApp(t, files, { cacheDir })
  const miss = await first.app.inject(optimizer('/images/photo.jpg'))
  t.equal(miss.headers['x-image-cache'], 'MISS')
  await first.app.close()
  const second = await buildImageApp(t, files, { cacheDir })
  const hit = await second.app.inject(optimizer('/images/photo.jpg'))
  t.equal(hit.headers['x-image-cache'], 'HIT')
  t.same(hit.rawPayload, miss.rawPayload)
  t.equal(hit.headers.etag, miss.headers.etag)
})

t.test('entries too big for memory are streamed from disk; an entry whose file vanished is made again', async (t) => {
  const { app, cacheDir, transforms } = await buildImageApp(t, files, { limits: { memoryEntryMaxBytes: 0 } })
  const request = { url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp' } }
  const miss = await app.inject(request)
  const hit = await app.inject(request)
  t.equal(hit.headers['x-image-cache'], 'HIT')
  t.same(hit.rawPayload, miss.rawPayload, 'the streamed bytes are the cached ones')
  t.equal(hit.headers['content-length'], String(miss.rawPayload.length))

  const restarted = await buildImageApp(t, files, { cacheDir })
  for (const name of readdirSync(cacheDir)) unlinkSync(path.join(cacheDir, name))
  const again = await restarted.app.inject(request)
  t.equal(again.statusCode, 200)
  t.equal(again.headers['x-image-cache'], 'MISS', 'made again instead of failing')
  t.same(again.rawPayload, miss.rawPayload)
  t.equal(transforms() + restarted.transforms(), 2)
})

t.test('a cache folder that cannot be written never fails a response', async (t) => {
  const blocker = path.join(temporaryFolder(t, 'cache'), 'a-file')
  const { writeFileSync } = await import('node:fs')
  writeFileSync(blocker, 'not a folder')
  const { app, logs } = await buildImageApp(t, files, { cacheDir: path.join(blocker, 'images') })
  for (const attempt of [1, 2]) {
    const response = await app.inject(optimizer('/images/photo.jpg'))
    t.equal(response.statusCode, 200, `attempt ${attempt}: served`)
    t.equal(response.headers['x-image-cache'], 'MISS', `attempt ${attempt}: nothing was cached`)
  }
  const warnings = logs()
    .filter((line) => line.level === 40)
    .map((line) => line.msg)
  t.ok(warnings.includes('image cache unavailable'), 'the missing folder is logged at start')
  t.ok(warnings.includes('image cache write failed'), 'each failed write is logged')
})

t.test('in the whole app: the site images through the optimizer, and GET /api/image-widths', async (t) => {
  const { app } = await build(t, { IMAGE_CACHE_DIR: path.join(temporaryFolder(t, 'cache'), 'app') })
  const response = await app.inject({
    url: optimizer(publicImagePath(), '&w=640&q=75'),
    headers: { accept: 'image/webp' },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/webp')
  t.equal((await sharp(response.rawPayload).metadata()).width, 640)
  t.equal(response.headers['x-request-id'] !== undefined, true, 'the request went through the access log')

  const widths = await app.inject('/api/image-widths')
  t.equal(widths.statusCode, 200)
  t.same(widths.json(), {
    deviceSizes: images.deviceSizes,
    imageSizes: images.imageSizes,
    qualities: [75],
    minimumCacheTTL: 60,
  })

  const notModified = await app.inject({
    url: optimizer(publicImagePath(), '&w=640&q=75'),
    headers: { accept: 'image/webp', 'if-none-match': response.headers.etag as string },
  })
  t.equal(notModified.statusCode, 304, 'revalidated')
  for (const name of [
    'content-type',
    'content-length',
    'content-disposition',
    'content-security-policy',
    'x-content-type-options',
    'referrer-policy',
    'x-image-cache',
  ]) {
    t.equal(notModified.headers[name], undefined, `the 304 has no ${name}, even from the site's policy`)
  }
  t.same(
    [notModified.headers.etag, notModified.headers.vary],
    [response.headers.etag, 'Accept'],
    'the 304 has the ETag and Vary',
  )

  const refused = await app.inject(optimizer(publicImagePath(), '&w=641'))
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().code, 'COURIER_ERR_IMAGE_QUERY_INVALID')
})

t.test('one cache entry per real variant: spellings of one local path share a key, q absent is q=75', async (t) => {
  const { app, transforms } = await buildImageApp(t, files)
  const request = (url: string, rest = '&w=640') =>
    app.inject({ url: optimizer(url, rest), headers: { accept: 'image/webp' } })
  const first = await request('/images/photo.jpg')
  t.equal(first.headers['x-image-cache'], 'MISS')
  for (const spelling of [
    '/images/photo%2Ejpg',
    '/images/photo%2ejpg',
    '/images//photo.jpg',
    '/images/%70hoto.jpg',
    '/%69mages/photo.jpg',
  ]) {
    const response = await request(spelling)
    t.equal(response.statusCode, 200, `${spelling}: served`)
    t.equal(response.headers['x-image-cache'], 'HIT', `${spelling}: the entry of /images/photo.jpg`)
    t.equal(response.headers.etag, first.headers.etag, `${spelling}: the same image`)
  }
  const explicit = await request('/images/photo.jpg', '&w=640&q=75')
  t.equal(explicit.headers['x-image-cache'], 'HIT', 'q=75 given is the default quality: the same entry')
  t.equal(transforms(), 1, 'one transform for every spelling')
})

t.test(
  'one client cannot take every transform slot: a second client still gets its image while the first floods',
  async (t) => {
    const { app } = await buildImageApp(t, files, {
      limits: { maxConcurrentTransforms: 1, maxQueuedTransforms: 8, maxTransformsPerClient: 4 },
    })
    const widths = allowedWidths.slice(0, 12)
    const flood = widths.map((width) =>
      app.inject({
        url: optimizer('/images/photo.jpg', `&w=${width}`),
        remoteAddress: '203.0.113.1',
        headers: { accept: 'image/avif' },
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const visitor = await app.inject({
      url: optimizer('/images/graphic.png', '&w=256'),
      remoteAddress: '198.51.100.7',
      headers: { accept: 'image/avif' },
    })
    t.equal(
      visitor.statusCode,
      200,
      `the other client's image is served (${visitor.statusCode} ${visitor.body.slice(0, 80)})`,
    )
    const flooded = await Promise.all(flood)
    const statuses = flooded.map((response) => response.statusCode)
    t.ok(statuses.includes(200), 'the flooding client gets some of its images')
    t.ok(
      statuses.some((status) => status !== 200),
      'and is refused beyond its share',
    )
    for (const response of flooded.filter((response) => response.statusCode !== 200)) {
      t.equal(response.json().code, 'COURIER_ERR_IMAGE_BUSY', 'refused as busy')
    }
  },
)

t.test('an animated PNG (acTL before IDAT) is served unchanged, whatever Accept says', async (t) => {
  const apng = animatedPng(24, 16)
  t.equal((await sharp(apng).metadata()).format, 'png', 'the test APNG is a valid PNG')
  const { app } = await buildImageApp(t, { 'images/spinner.png': apng })
  for (const accept of ['image/avif,image/webp,image/apng,image/*,*/*;q=0.8', safari12Accept, '*/*']) {
    const response = await app.inject({ url: optimizer('/images/spinner.png', '&w=16'), headers: { accept } })
    t.equal(response.statusCode, 200, `${accept}: served`)
    t.equal(response.headers['content-type'], 'image/png', `${accept}: as PNG`)
    t.same(response.rawPayload, apng, `${accept}: the very bytes of the source, both frames`)
    t.equal(response.headers['content-disposition'], 'inline; filename="spinner.png"', `${accept}: file name`)
  }
  const still = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#f00' } })
    .png()
    .toBuffer()
  const { app: other } = await buildImageApp(t, { 'images/still.png': still })
  const resized = await other.inject({
    url: optimizer('/images/still.png', '&w=16'),
    headers: { accept: 'image/webp' },
  })
  t.equal(resized.headers['content-type'], 'image/webp', 'a still PNG is still optimized')
})

t.test(
  'an animated WebP goes unchanged to a browser that accepts WebP, as an animated GIF to one that does not',
  async (t) => {
    const frame = (colour: string) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
        .png()
        .toBuffer()
    const animated = await sharp([await frame('#f00'), await frame('#00f')], { join: { animated: true } })
      .webp()
      .toBuffer()
    const { app } = await buildImageApp(t, { 'images/moving.webp': animated })
    const chrome = await app.inject({
      url: optimizer('/images/moving.webp', '&w=16'),
      headers: { accept: 'image/avif,image/webp,*/*' },
    })
    t.equal(chrome.headers['content-type'], 'image/webp')
    t.same(chrome.rawPayload, animated, 'the very bytes of the source')
    const safari = await app.inject({
      url: optimizer('/images/moving.webp', '&w=16'),
      headers: { accept: safari12Accept },
    })
    t.equal(safari.statusCode, 200)
    t.equal(safari.headers['content-type'], 'image/gif', 'a format Safari 12 decodes')
    const metadata = await sharp(safari.rawPayload, { animated: true }).metadata()
    t.equal(metadata.format, 'gif')
    t.equal(metadata.pages, 2, 'still animated')
    t.equal(safari.headers['content-disposition'], 'inline; filename="moving.gif"')
  },
)

t.test(
  'a WebP or AVIF source is converted for a browser that does not accept it (Safari 12): JPEG, PNG for alpha',
  async (t) => {
    const opaque = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366ff' } })
      .webp()
      .toBuffer()
    const translucent = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#3366ff80' } })
      .webp()
      .toBuffer()
    const avif = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ff6633' } })
      .avif()
      .toBuffer()
    const { app } = await buildImageApp(t, {
      'images/opaque.webp': opaque,
      'images/translucent.webp': translucent,
      'images/photo.avif': avif,
    })
    const cases = [
      { file: 'opaque.webp', accept: safari12Accept, type: 'image/jpeg', format: 'jpeg', name: 'opaque.jpg' },
      { file: 'translucent.webp', accept: safari12Accept, type: 'image/png', format: 'png', name: 'translucent.png' },
      { file: 'photo.avif', accept: safari12Accept, type: 'image/jpeg', format: 'jpeg', name: 'photo.jpg' },
      { file: 'opaque.webp', accept: '*/*', type: 'image/jpeg', format: 'jpeg', name: 'opaque.jpg' },
      { file: 'photo.avif', accept: undefined, type: 'image/jpeg', format: 'jpeg', name: 'photo.jpg' },
      { file: 'photo.avif', accept: 'image/webp,*/*', type: 'image/webp', format: 'webp', name: 'photo.webp' },
      {
        file: 'opaque.webp',
        accept: 'image/avif,image/webp,*/*',
        type: 'image/avif',
        format: 'heif',
        name: 'opaque.avif',
      },
    ]
    for (const { file, accept, type, format, name } of cases) {
      const label = `${file} with Accept ${accept ?? '(none)'}`
      const response = await app.inject({
        url: optimizer(`/images/${file}`, '&w=256'),
        headers: accept ? { accept } : {},
      })
      t.equal(response.statusCode, 200, `${label}: served`)
      t.equal(response.headers['content-type'], type, `${label}: ${type}`)
      t.equal((await sharp(response.rawPayload).metadata()).format, format, `${label}: the bytes are ${format}`)
      t.equal(
        response.headers['content-disposition'],
        `inline; filename="${name}"`,
        `${label}: the download name follows the type`,
      )
    }
  },
)

t.test('a 304 carries only ETag, Cache-Control, Vary and Date (node:http, as a browser revalidates)', async (t) => {
  const { app } = await buildImageApp(t, files)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const get = (headers: Record<string, string>) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.get(
        { host: '127.0.0.1', port, path: optimizer('/images/photo.jpg'), headers, agent: false },
        (response) => {
          response.resume()
          response.on('end', () => resolve(response))
        },
      )
      request.on('error', reject)
    })
  const first = await get({ accept: 'image/webp' })
  t.equal(first.statusCode, 200)
  const etag = first.headers.etag as string
  for (const state of ['HIT (from the cache)', 'MISS (just made)']) {
    if (state.startsWith('MISS')) {
      const { app: fresh } = await buildImageApp(t, files)
      await fresh.listen({ host: '127.0.0.1', port: 0 })
      const freshPort = (fresh.server.address() as AddressInfo).port
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get(
            {
              host: '127.0.0.1',
              port: freshPort,
              path: optimizer('/images/photo.jpg'),
              headers: { accept: 'image/webp', 'if-none-match': etag },
              agent: false,
            },
            (answer) => {
              answer.resume()
              answer.on('end', () => resolve(answer))
            },
          )
          .on('error', reject)
      })
      checkNotModified(t, response, etag, state)
      continue
    }
    checkNotModified(t, await get({ accept: 'image/webp', 'if-none-match': etag }), etag, state)
  }
})

function checkNotModified(t: Test, response: http.IncomingMessage, etag: string, state: string) {
  t.equal(response.statusCode, 304, `${state}: 304`)
  const names = Object.keys(response.headers)
    .filter((name) => name !== 'connection' && name !== 'keep-alive')
    .sort()
  t.same(names, ['cache-control', 'date', 'etag', 'vary'], `${state}: only the headers that update a cached response`)
  t.equal(response.headers.etag, etag, `${state}: ETag`)
  t.equal(response.headers.vary, 'Accept', `${state}: Vary`)
  t.equal(
    response.headers['cache-control'],
    `public, max-age=${images.minimumCacheTTL}, must-revalidate`,
    `${state}: Cache-Control`,
  )
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function waitForState<T extends { headers: Record<string, unknown> }>(
  request: () => Promise<T>,
  state: string,
): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const response = await request()
    if (response.headers['x-image-cache'] === state || Date.now() > deadline) return response
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
