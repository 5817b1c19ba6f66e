/**
 * The proxy serves what Courier serves (docs/running-at-scale.md "What nginx sends"): every kind of answer,
 * through nginx with deploy/nginx/ and from the instance behind it directly, for each `Accept-Encoding` a client may
 * send. The same status, the same `Content-Encoding`, the same bytes once decoded, and the same headers a client or a
 * cache relies on. Values made per request (the nonce, `x-request-id`, `Date`) are left out, and documents are
 * compared with their nonce blanked. Chunks also with `Available-Dictionary` (docs/compression.md "Dictionaries"):
 * a dictionary the instance has a delta against, an unknown one and a malformed header.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { compression } from '../../config/compression.ts'
import { defaultDistDir } from '../../config/env.ts'
import { publishedChunksDir } from '../../deploy/shared-assets.ts'
import { dictionaryFilesIn, writeDeltas } from '../../src/build/dictionary-deltas.ts'
import { sha256 } from '../../src/compression/dictionaries.ts'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { projectRoot, startServer } from '../reliability/server-process.ts'
import { startNginxInFront, startRedis } from './processes.ts'
import { getHttp1, view as answerView, type RawAnswer } from './answers.ts'
import { publicImagePath } from '../helpers/site-pages.ts'

/** The dictionaries a `dcz` answer may name, by hex SHA-256. */
const dictionaryBytes = new Map<string, Buffer>()

/** One GET with node:http: fetch would decode the body and drop the coding this test is about. */
const get = (origin: string, pathname: string, headers: Record<string, string>) => getHttp1(origin, pathname, headers)

/** What must be equal through nginx and directly, `dcb`/`dcz` answers decoded with the dictionaries offered. */
const view = (answer: RawAnswer, other: RawAnswer) => answerView(answer, other, dictionaryBytes)

/**
 * Every Accept-Encoding the comparison runs with (`undefined` sends none), and whether nginx negotiates it itself from
 * the shared folder (plain lists of codings, as browsers send) or passes it to an instance (q-values, `*`, a coding
 * nginx's map does not list).
 */
const acceptEncodings: Array<[string | undefined, 'nginx' | 'an instance']> = [
  ['br, gzip', 'nginx'],
  ['gzip', 'nginx'],
  ['br', 'nginx'],
  ['identity', 'nginx'],
  [undefined, 'nginx'],
  ['gzip;q=0, br', 'an instance'],
  ['*', 'an instance'],
  ['gzip, br', 'nginx'],
  ['gzip;q=1, br;q=0.5', 'an instance'],
  ['gzip, deflate, br, zstd', 'nginx'],
  ['gzip, xbr, br', 'an instance'],
  // zstd is the best coding for these, and nginx has no zstd module: an instance answers, cached by coding.
  ['zstd', 'an instance'],
  ['gzip, zstd', 'an instance'],
  ['br;q=0.5, zstd', 'an instance'],
  ['zstd;q=0, br', 'an instance'],
]

const redis = await startRedis(t)
// The instance serves the test build (COURIER_TEST_ROUTES): its assets are the ones nginx publishes.
const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
// Deltas of the test build's chunks against the production build's (another deployment: every chunk differs), written
// before the instance starts (it finds them at start-up) and removed when the test ends.
const previousChunks = path.join(projectRoot, defaultDistDir(false), 'client', 'chunks')
const previousFiles = await dictionaryFilesIn(previousChunks)
if (previousFiles.length === 0) throw new Error(`no production build at ${previousChunks}: run \`npm run build\``)
const dictionaryHashOf = new Map<string, string>()
for (const file of previousFiles) {
  const bytes = await readFile(file)
  const hash = sha256(bytes).toString('hex')
  dictionaryBytes.set(hash, bytes)
  dictionaryHashOf.set(file, hash)
}
const chunksDir = path.join(distDir, 'client', 'chunks')
const deltas = await writeDeltas(chunksDir, previousFiles)
t.teardown(() =>
  Promise.all(
    deltas.written.map((delta) =>
      rm(path.join(chunksDir, `${delta.chunk}.${dictionaryHashOf.get(delta.dictionary)}.${delta.coding}`), {
        force: true,
      }),
    ),
  ),
)
const instance = await startServer(t, {
  env: { REDIS_URL: redis.url, TRUST_PROXY: '127.0.0.1', COURIER_TEST_ROUTES: 'true' },
  keepAccessLines: false,
})

const { origin: proxy, prefix } = await startNginxInFront(t, { distDir, deploymentId, servers: [instance.port] })

// The built files `/` loads, found as a browser finds them: the entry chunk from the loader, the stylesheet and
// the font from the build's folder (the document may inline the stylesheet).
const home = (await get(instance.origin, '/', {})).wire.toString('utf8')
const entry = entryLoaderUrls(home).entries[0]
if (!entry) throw new Error('`/` starts no script')
const builtFiles = await readdir(path.join(distDir, 'client', 'chunks'))
const stylesheet = builtFiles.find((name) => name.endsWith('.css'))
const font = builtFiles.find((name) => name.endsWith('.woff2'))
// A chunk below the build's precompression threshold: it has neither `.br` nor `.gz` beside it.
const small = builtFiles.find(
  (name) => name.endsWith('.js') && !builtFiles.includes(`${name}.br`) && !builtFiles.includes(`${name}.gz`),
)
// A page chunk taken out of the shared folder (with its coded files): nginx asks the instance for it and caches it.
const unpublished = builtFiles.find((name) => /^home-.*\.js$/.test(name))
if (!stylesheet || !font || !small || !unpublished)
  throw new Error(
    `the build lacks a stylesheet, a font, a small chunk or the home page's chunk: ${builtFiles.join(' ')}`,
  )
const asset = (name: string) => `/_next/static/chunks/${name}?dpl=${deploymentId}`
const publishedFolder = publishedChunksDir(path.join(prefix, 'assets'), deploymentId)
for (const suffix of ['', '.br', '.gz', '.zst'])
  await rm(path.join(publishedFolder, `${unpublished}${suffix}`), { force: true })

t.test('the shared folder holds the .br, .gz and .zst the build wrote beside each text asset', async (t) => {
  const published = await readdir(publishedFolder)
  const text = builtFiles.filter(
    (name) => compression.precompressedExtensions.includes(path.extname(name)) && name !== unpublished,
  )
  t.ok(text.length > 0)
  for (const name of text) {
    const { size } = await stat(path.join(distDir, 'client', 'chunks', name))
    const expected =
      size >= compression.precompressMinBytes ? [name, `${name}.br`, `${name}.gz`, `${name}.zst`] : [name]
    t.same(
      expected.filter((file) => published.includes(file)),
      expected,
      `${name} (${size} bytes)`,
    )
  }
})

/**
 * `inFolder`: a file of the shared folder, which nginx serves itself for the headers it negotiates.
 * `cacheStatuses`: nginx's X-Cache-Status for each Accept-Encoding in turn, where nginx caches the answer: one entry
 * per coding (a HIT for a second header asking for a coding already cached), none for the headers an instance negotiates.
 */
const kinds: Array<{
  kind: string
  path: string
  headers?: Record<string, string>
  inFolder?: boolean
  cacheStatuses?: string[]
}> = [
  { kind: 'a kept static document', path: '/' },
  { kind: 'a streamed dynamic document', path: '/__test/slow?delay=50' },
  { kind: 'page data', path: `/_next/data/${deploymentId}/index.json`, headers: { 'x-deployment-id': deploymentId } },
  { kind: 'the entry chunk', path: `${new URL(entry, proxy).pathname}?dpl=${deploymentId}`, inFolder: true },
  { kind: 'a stylesheet', path: asset(stylesheet), inFolder: true },
  { kind: 'a font', path: asset(font), inFolder: true },
  { kind: 'a chunk too small to precompress', path: asset(small), inFolder: true },
  {
    kind: 'the entry chunk through another proxy',
    path: `${new URL(entry, proxy).pathname}?dpl=${deploymentId}`,
    headers: { via: '1.1 cdn.example' },
    inFolder: true,
  },
  {
    kind: 'a chunk not in the shared folder (from the instance, cached)',
    path: asset(unpublished),
    cacheStatuses: [
      'MISS',
      'MISS',
      'HIT',
      'MISS',
      'HIT',
      'BYPASS',
      'BYPASS',
      'HIT',
      'BYPASS',
      'HIT',
      'BYPASS',
      'MISS',
      'HIT',
      'BYPASS',
      'BYPASS',
    ],
  },
  { kind: 'an unknown asset (404)', path: asset('not-published-A1b2C3d4.js') },
  { kind: 'sitemap.xml', path: '/sitemap.xml' },
  { kind: 'a sitemap of pages', path: '/sitemap-0.xml' },
  { kind: 'robots.txt', path: '/robots.txt' },
  {
    kind: 'an optimized image',
    path: `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640&q=75`,
    headers: { accept: 'image/avif,image/webp,*/*' },
  },
  { kind: 'a public image', path: publicImagePath() },
  { kind: 'the 404 document', path: '/no-such-page' },
  { kind: 'an /api JSON answer', path: '/api/image-widths' },
]

for (const { kind, path: requestPath, headers = {}, inFolder = false, cacheStatuses } of kinds) {
  t.test(`${kind}: ${requestPath}`, async (t) => {
    const seenCacheStatuses: Array<string | undefined> = []
    for (const [acceptEncoding, negotiatedBy] of acceptEncodings) {
      const sent = acceptEncoding === undefined ? headers : { ...headers, 'accept-encoding': acceptEncoding }
      const direct = await get(instance.origin, requestPath, sent)
      const proxied = await get(proxy, requestPath, sent)
      t.same(
        view(proxied, direct),
        view(direct, proxied),
        `Accept-Encoding ${acceptEncoding === undefined ? '(none)' : `"${acceptEncoding}"`}`,
      )
      seenCacheStatuses.push(proxied.headers['x-cache-status'] as string | undefined)
      if (inFolder) {
        const servedBy = proxied.headers['x-courier-asset'] === 'shared-folder' ? 'nginx' : 'an instance'
        t.equal(servedBy, negotiatedBy, 'served from the shared folder unless an instance must negotiate')
      }
      if (kind === 'the entry chunk' && (acceptEncoding === 'zstd' || acceptEncoding === 'gzip, zstd')) {
        t.equal(
          proxied.headers['content-encoding'],
          'zstd',
          `${acceptEncoding}: the build's .zst, through nginx from an instance`,
        )
      }
      if (acceptEncoding === 'br, gzip') {
        t.comment(
          `${kind}, br, gzip: ${proxied.wire.length} bytes through nginx (${proxied.headers['content-encoding'] ?? 'identity'}), ${direct.wire.length} from the instance (${direct.headers['content-encoding'] ?? 'identity'})`,
        )
      }
    }
    if (cacheStatuses)
      t.same(seenCacheStatuses, cacheStatuses, 'cached once per coding; never what an instance negotiated')
  })
}

/**
 * A chunk with `Available-Dictionary`: through nginx and directly, the same answer for a dictionary the instance has
 * a delta against (`dcz` where Accept-Encoding takes it), for an unknown one and for a malformed header (the chunk's
 * other codings), with the same Vary. nginx passes both headers to an instance where the request takes `dcz`, caches
 * only the deltas (one entry per dictionary), and serves every other from the shared folder.
 */
t.test('the entry chunk with Available-Dictionary', async (t) => {
  const entryName = path.basename(new URL(entry, proxy).pathname)
  const entryDeltas = deltas.written.filter((one) => one.chunk === entryName)
  const dcz = entryDeltas.find((one) => one.coding === 'dcz')
  const dcb = entryDeltas.find((one) => one.coding === 'dcb')
  if (!dcz || !dcb)
    throw new Error(
      `no dcb and dcz delta of the entry chunk ${entryName}: ${deltas.written.map((one) => `${one.chunk}.${one.coding}`).join(' ')}`,
    )
  const smaller = dcb.bytes <= dcz.bytes ? dcb : dcz
  const known = `:${Buffer.from(dictionaryHashOf.get(dcz.dictionary)!, 'hex').toString('base64')}:`
  const dictionaryHeaders: Array<[string, string]> = [
    ['a known dictionary', known],
    ['an unknown dictionary', `:${sha256(Buffer.from('not a chunk of any deployment')).toString('base64')}:`],
    ['a malformed header', known.slice(0, -1)],
  ]
  // Accept-Encoding, who answers, and the coding of the answer for a known dictionary.
  const codings: Array<[string, 'nginx' | 'an instance', string]> = [
    ['gzip, deflate, br, zstd, dcb, dcz', 'an instance', smaller.coding],
    ['gzip, deflate, br, zstd, dcz', 'an instance', 'dcz'],
    ['br, dcb', 'an instance', 'dcb'],
    ['gzip, deflate, br, zstd', 'nginx', 'br'],
    ['br;q=1, dcz;q=0.5', 'an instance', 'br'],
    ['gzip, dcz', 'an instance', 'dcz'],
    ['dcz;q=0, br', 'an instance', 'br'],
  ]
  const requestPath = `${new URL(entry, proxy).pathname}?dpl=${deploymentId}`
  for (const [name, dictionary] of dictionaryHeaders) {
    for (const [acceptEncoding, servedBy, knownCoding] of codings) {
      const sent = { 'accept-encoding': acceptEncoding, 'available-dictionary': dictionary }
      const direct = await get(instance.origin, requestPath, sent)
      const proxied = await get(proxy, requestPath, sent)
      const label = `${name}, Accept-Encoding "${acceptEncoding}"`
      t.same(view(proxied, direct), view(direct, proxied), label)
      t.equal(
        proxied.headers['x-courier-asset'] === 'shared-folder' ? 'nginx' : 'an instance',
        servedBy,
        `${label}: served by ${servedBy}`,
      )
      const isDelta = knownCoding === 'dcb' || knownCoding === 'dcz'
      const expected =
        name === 'a known dictionary' || !isDelta ? knownCoding : acceptEncoding.includes('br') ? 'br' : 'gzip'
      t.equal(proxied.headers['content-encoding'], expected, `${label}: ${expected}`)
      t.equal(proxied.headers.vary, 'accept-encoding, available-dictionary', `${label}: Vary names both`)
      if (expected === 'dcb' || expected === 'dcz')
        t.equal(proxied.wire.length, (expected === 'dcb' ? dcb : dcz).bytes, `${label}: the delta's bytes`)
    }
  }
  // The cache: a delta is kept and given again, per set of dictionary codings named; an unknown dictionary's
  // fallback is not kept.
  const statuses = async (acceptEncoding: string, dictionary: string) => {
    const seen: string[] = []
    for (let index = 0; index < 2; index += 1) {
      const answer = await get(proxy, requestPath, {
        'accept-encoding': acceptEncoding,
        'available-dictionary': dictionary,
      })
      seen.push(`${String(answer.headers['x-cache-status'])} ${String(answer.headers['content-encoding'])}`)
    }
    return seen
  }
  t.same(
    await statuses('gzip, deflate, br, zstd, dcb, dcz', known),
    [`HIT ${smaller.coding}`, `HIT ${smaller.coding}`],
    'the delta: cached since the first request above',
  )
  t.same(
    await statuses('gzip, deflate, br, zstd, dcz', known),
    ['HIT dcz', 'HIT dcz'],
    'a client that takes only dcz: its own entry, never the dcb one',
  )
  t.same(
    await statuses('gzip, deflate, br, zstd, dcb, dcz', dictionaryHeaders[1]![1]),
    ['MISS br', 'MISS br'],
    'an unknown dictionary: never cached',
  )
  t.comment(
    `the entry chunk against the production build's: ${dcb.bytes} B in dcb, ${dcz.bytes} B in dcz, ${dcz.ordinaryBytes} B in its best coding`,
  )
})
