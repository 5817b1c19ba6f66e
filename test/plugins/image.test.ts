import { readdirSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import t from 'tap'
import { images } from '../../config/images.ts'
import { build } from '../helpers/app.ts'
import { buildImageApp, jpegOf, pixelBombPng, temporaryFolder } from '../helpers/images.ts'

const allowedWidths = [...images.imageSizes, ...images.deviceSizes]
const photo = await jpegOf(800, 600)
const png = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#3366ff80' } }).png().toBuffer()
const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'
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
  { name: 'missing url', path: '/_next/image?w=640', status: 400, code: 'COURIER_ERR_IMAGE_QUERY_INVALID', message: 'url is required' },
  { name: 'empty url', path: '/_next/image?url=&w=640', status: 400, code: 'COURIER_ERR_IMAGE_QUERY_INVALID', message: 'url must not be empty' },
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
  ...['ftp://files.example/a.jpg', 'file:///etc/passwd', 'javascript:alert(1)', 'data:image/png;base64,iVBORw0KGgo='].map(
    (url): Refusal => ({
      name: `non-http scheme ${url.split(':')[0]}`,
      path: optimizer(url),
      status: 400,
      code: 'COURIER_ERR_IMAGE_URL_REFUSED',
      message: /^url must use http or https, not /,
    }),
  ),
  {
    name: 'a relative url without a leading slash',
    path: optimizer('images/photo.jpg'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_URL_REFUSED',
    message: 'url must be a local path starting with / or an absolute http(s) URL',
  },
  ...['/_next/image?url=/images/photo.jpg&w=64', '/_next%2Fimage?url=/images/photo.jpg&w=64', '/_next/%69mage', '/_NEXT/IMAGE', '//_next/image'].map(
    (url): Refusal => ({
      name: `url pointing at the optimizer: ${url}`,
      path: optimizer(url),
      status: 400,
      code: 'COURIER_ERR_IMAGE_URL_REFUSED',
      message: url.startsWith('//') ? /^url must not be protocol-relative/ : 'url must not point at the image optimizer itself',
    }),
  ),
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
  ].map(
    (url): Refusal => ({
      name: `traversal ${url}`,
      path: optimizer(url),
      status: 400,
      code: 'COURIER_ERR_IMAGE_URL_REFUSED',
      message: 'url must not traverse out of the public folder',
    }),
  ),
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
  { name: 'missing w', path: optimizer('/images/photo.jpg', ''), status: 400, code: 'COURIER_ERR_IMAGE_QUERY_INVALID', message: 'w is required' },
  ...['641', '0', '-1', 'abc', '640.5', '', '1e3'].map(
    (w): Refusal => ({
      name: `w=${w}`,
      path: optimizer('/images/photo.jpg', `&w=${w}`),
      status: 400,
      code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
      message: widthMessage,
    }),
  ),
  {
    name: 'duplicated w',
    path: optimizer('/images/photo.jpg', '&w=640&w=640'),
    status: 400,
    code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
    message: 'w must be given once',
  },
  ...['0', '101', 'abc', '75.5', '-5'].map(
    (quality): Refusal => ({
      name: `q=${quality}`,
      path: optimizer('/images/photo.jpg', `&w=640&q=${quality}`),
      status: 400,
      code: 'COURIER_ERR_IMAGE_QUERY_INVALID',
      message: 'q must be an integer from 1 to 100',
    }),
  ),
  { name: 'a missing file', path: optimizer('/images/missing.jpg'), status: 404, code: 'COURIER_ERR_IMAGE_NOT_FOUND', message: 'url /images/missing.jpg was not found' },
  { name: 'a folder', path: optimizer('/images'), status: 404, code: 'COURIER_ERR_IMAGE_NOT_FOUND', message: 'url /images was not found' },
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
    { accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8', file: 'photo.jpg', type: 'image/avif', format: 'heif', ext: 'avif' },
    { accept: 'image/webp,*/*', file: 'photo.jpg', type: 'image/webp', format: 'webp', ext: 'webp' },
    { accept: 'image/avif;q=0,image/webp', file: 'photo.jpg', type: 'image/webp', format: 'webp', ext: 'webp' },
    { accept: '*/*', file: 'photo.jpg', type: 'image/jpeg', format: 'jpeg', ext: 'jpg' },
    { accept: undefined, file: 'photo.jpg', type: 'image/jpeg', format: 'jpeg', ext: 'jpg' },
    { accept: 'image/*', file: 'graphic.png', type: 'image/png', format: 'png', ext: 'png' },
    { accept: 'image/webp', file: 'graphic.png', type: 'image/webp', format: 'webp', ext: 'webp' },
  ]
  for (const { accept, file, type, format, ext } of cases) {
    const response = await app.inject({ url: optimizer(`/images/${file}`, '&w=256&q=60'), headers: accept ? { accept } : {} })
    const label = `${file} with Accept ${accept ?? '(none)'}`
    t.equal(response.statusCode, 200, label)
    t.equal(response.headers['content-type'], type, `${label}: ${type}`)
    t.equal((await sharp(response.rawPayload).metadata()).format, format, `${label}: the bytes are ${format}`)
    t.equal(response.headers.vary, 'Accept', `${label}: Vary`)
    t.equal(response.headers['content-disposition'], `inline; filename="${file.replace(/\.\w+$/, '')}.${ext}"`, `${label}: file name`)
    t.equal(response.headers['content-security-policy'], "script-src 'none'; frame-src 'none'; sandbox;", `${label}: CSP`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
    t.equal(response.headers['content-length'], String(response.rawPayload.length), `${label}: length`)
  }
})

t.test('SVG is served as it is, sandboxed, when IMAGES_ALLOW_SVG is on', async (t) => {
  const { app } = await buildImageApp(t, files, { allowSvg: true })
  const response = await app.inject({ url: optimizer('/images/logo.svg'), headers: { accept: 'image/avif,image/webp' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/svg+xml')
  t.equal(response.body, svg)
  t.equal(response.headers['content-security-policy'], "script-src 'none'; frame-src 'none'; sandbox;")
  t.equal(response.headers['content-disposition'], 'inline; filename="logo.svg"')
})

t.test('animated images are served unchanged, in their own format', async (t) => {
  const frame = (colour: string) => sharp({ create: { width: 40, height: 30, channels: 3, background: colour } }).png().toBuffer()
  const animated = await sharp([await frame('#f00'), await frame('#00f')], { join: { animated: true } }).gif().toBuffer()
  const { app } = await buildImageApp(t, { 'images/moving.gif': animated })
  const response = await app.inject({ url: optimizer('/images/moving.gif', '&w=16'), headers: { accept: 'image/avif,image/webp' } })
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
  await t.resolves(waitFor(() => transforms() === 2), 'refreshed in the background')

  const refreshed = await waitForState(() => app.inject(request), 'HIT')
  t.equal(refreshed.headers['x-image-cache'], 'HIT', 'fresh again after the refresh')
  t.equal(transforms(), 2, 'one refresh only')
})

t.test('If-None-Match with the ETag answers 304 without a body', async (t) => {
  const { app } = await buildImageApp(t, files)
  const first = await app.inject({ url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp' } })
  const etag = first.headers.etag as string
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const response = await app.inject({ url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp', 'if-none-match': ifNoneMatch } })
    t.equal(response.statusCode, 304, `If-None-Match: ${ifNoneMatch}`)
    t.equal(response.body, '')
    t.equal(response.headers.etag, etag)
    t.equal(response.headers['x-image-cache'], 'HIT')
    t.equal(response.headers.vary, 'Accept')
  }
  const changed = await app.inject({ url: optimizer('/images/photo.jpg'), headers: { accept: 'image/webp', 'if-none-match': '"other"' } })
  t.equal(changed.statusCode, 200, 'another ETag gets the bytes')
})

t.test('three identical concurrent misses make one transform', async (t) => {
  const { app, transforms } = await buildImageApp(t, files)
  const request = { url: optimizer('/images/photo.jpg', '&w=750'), headers: { accept: 'image/avif' } }
  const responses = await Promise.all([app.inject(request), app.inject(request), app.inject(request)])
  t.same(responses.map((response) => response.statusCode), [200, 200, 200])
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
  const state = async (name: string) => (await app.inject(optimizer(`/images/${name}`, '&w=128'))).headers['x-image-cache']

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
  const warnings = logs().filter((line) => line.level === 40).map((line) => line.msg)
  t.ok(warnings.includes('image cache unavailable'), 'the missing folder is logged at start')
  t.ok(warnings.includes('image cache write failed'), 'each failed write is logged')
})

t.test('in the whole app: the site images through the optimizer, and GET /api/image-widths', async (t) => {
  const { app } = await build(t, { IMAGE_CACHE_DIR: path.join(temporaryFolder(t, 'cache'), 'app') })
  const response = await app.inject({ url: optimizer('/images/abstract.jpg', '&w=640&q=70'), headers: { accept: 'image/webp' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'image/webp')
  t.equal((await sharp(response.rawPayload).metadata()).width, 640)
  t.equal(response.headers['x-request-id'] !== undefined, true, 'the request went through the access log')

  const widths = await app.inject('/api/image-widths')
  t.equal(widths.statusCode, 200)
  t.same(widths.json(), { deviceSizes: images.deviceSizes, imageSizes: images.imageSizes, minimumCacheTTL: 60 })

  const refused = await app.inject(optimizer('/images/abstract.jpg', '&w=641'))
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().code, 'COURIER_ERR_IMAGE_QUERY_INVALID')
})

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function waitForState<T extends { headers: Record<string, unknown> }>(request: () => Promise<T>, state: string): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const response = await request()
    if (response.headers['x-image-cache'] === state || Date.now() > deadline) return response
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
