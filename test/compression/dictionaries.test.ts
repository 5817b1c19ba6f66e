/**
 * Compression dictionaries (docs/compression.md "Dictionaries"): the `match` rule of each chunk, the request headers
 * read strictly, deltas between two real builds decoded by node:zlib and by the `zstd` tool, and the chunk answers
 * with and without a dictionary the build knows.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliDecompressSync, zstdDecompressSync, type BrotliOptions } from 'node:zlib'
import { projectRoot } from '../../config/env.ts'
import {
  availableDictionaryHash,
  deltaHeaderBytes,
  deltaMagic,
  dictionaryRule,
  sha256,
  useAsDictionary,
  type DictionaryCoding,
} from '../../src/compression/dictionaries.ts'
import { dictionaryCoding } from '../../src/compression/negotiate.ts'
import { dictionaryFilesIn, writeDeltas } from '../../src/build/dictionary-deltas.ts'
import { pino } from 'pino'
import { loadConfig } from '../../config/env.ts'
import { buildApp } from '../../src/app.ts'
import { loggerOptions } from '../../src/logger.ts'
import { captureLogs } from '../helpers/app.ts'
import { buildWithChangedPage, isPageChunk } from '../helpers/changed-build.ts'

const origin = 'http://127.0.0.1:3000'

t.test('the match rule: the same name under any later hash, same origin, no regexp group, any query', async (t) => {
  const table: [string, { match: string; destination: string } | undefined][] = [
    ['/_next/static/chunks/page-DOWzXlT5.js', { match: '/_next/static/chunks/page-*.js', destination: 'script' }],
    ['/_next/static/chunks/index-DVZySBUR.css', { match: '/_next/static/chunks/index-*.css', destination: 'style' }],
    [
      '/_next/static/chunks/guide-list-LYQ5OpNm.js',
      { match: '/_next/static/chunks/guide-list-*.js', destination: 'script' },
    ],
    ['/_next/static/chunks/home-BV9_uA0M.js', { match: '/_next/static/chunks/home-*.js', destination: 'script' }],
    ['/_next/static/chunks/inter-latin-wght-normal-Dx4kXJAl.woff2', undefined],
    ['/_next/static/chunks/page-DOWzXlT5.js.br', undefined],
    ['/_next/static/chunks/page.js', undefined],
    ['/_next/static/chunks/page-short.js', undefined],
    ['/_next/static/chunks/nested/page-DOWzXlT5.js', undefined],
    ['/_next/static/chunks/fa(q)-DOWzXlT5.js', undefined],
    ['/_next/static/chunks/fa*q-DOWzXlT5.js', undefined],
    ['/_next/static/page-DOWzXlT5.js', undefined],
    ['/page-DOWzXlT5.js', undefined],
  ]
  for (const [urlPath, expected] of table) t.same(dictionaryRule(urlPath), expected, urlPath)

  const rule = dictionaryRule('/_next/static/chunks/page-DOWzXlT5.js')!
  t.equal(useAsDictionary(rule), 'match="/_next/static/chunks/page-*.js", match-dest=("script")')
  // As the browser reads it: relative to the chunk's own URL.
  const pattern = new URLPattern(rule.match, `${origin}/_next/static/chunks/page-DOWzXlT5.js`)
  t.equal(pattern.hasRegExpGroups, false, 'no regexp group (Chromium refuses one)')
  t.ok(
    pattern.test(`${origin}/_next/static/chunks/page-Bx2_k-9Q.js?dpl=b1`),
    "the next deployment's chunk, with its ?dpl=",
  )
  t.ok(pattern.test(`${origin}/_next/static/chunks/page-DOWzXlT5.js`), 'itself')
  t.notOk(pattern.test(`https://cdn.example/_next/static/chunks/page-Bx2_k-9Q.js`), 'another origin')
  t.notOk(pattern.test(`${origin}/_next/static/chunks/page-Bx2_k-9Q.css`), 'another type')
  t.notOk(pattern.test(`${origin}/_next/static/chunks/home-Bx2_k-9Q.js`), 'another chunk')
})

t.test('Available-Dictionary: one byte sequence of 32 bytes, strictly; anything else is as if absent', async (t) => {
  const hash = sha256(Buffer.from('a dictionary'))
  const valid = `:${hash.toString('base64')}:`
  t.equal(availableDictionaryHash(valid), hash.toString('hex'), 'the hash, in hex')
  t.equal(availableDictionaryHash(` ${valid}\t`), hash.toString('hex'), 'around it, spaces')
  // The 43rd character carries the last 4 bits and 2 unused ones: set one of those, and it decodes alike.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  const base64 = hash.toString('base64')
  const nonCanonical = `:${base64.slice(0, 42)}${alphabet[alphabet.indexOf(base64[42]!) | 1]}=:`
  const malformed = [
    undefined,
    '',
    hash.toString('base64'),
    `:${hash.toString('base64')}`,
    `"${hash.toString('base64')}"`,
    `:${hash.toString('base64url')}:`,
    `:${hash.toString('base64').slice(0, -1)}:`,
    `:${sha256(Buffer.from('x')).subarray(0, 31).toString('base64')}:`,
    `:${Buffer.concat([hash, Buffer.from([1])]).toString('base64')}:`,
    `${valid}, ${valid}`,
    `${valid};a=1`,
    `:${'!'.repeat(43)}=:`,
  ]
  for (const header of malformed) t.equal(availableDictionaryHash(header), undefined, JSON.stringify(header))
  t.equal(availableDictionaryHash(nonCanonical), undefined, 'bits past the 32nd byte: not canonical')
})

t.test(
  'dcb or dcz only when named and weighed at least as any other coding of built assets; the smaller on a tie',
  async (t) => {
    const fallbacks = ['br', 'zstd', 'gzip']
    const table: [string | undefined, readonly DictionaryCoding[], DictionaryCoding | undefined][] = [
      ['gzip, deflate, br, zstd, dcb, dcz', ['dcb', 'dcz'], 'dcb'],
      ['gzip, deflate, br, zstd, dcb, dcz', ['dcz', 'dcb'], 'dcz'],
      ['gzip, deflate, br, zstd, dcb, dcz', ['dcz'], 'dcz'],
      ['dcz', ['dcb', 'dcz'], 'dcz'],
      ['br, dcb', ['dcb', 'dcz'], 'dcb'],
      ['DCZ;q=1, br', ['dcb', 'dcz'], 'dcz'],
      ['dcb;q=0.5, dcz', ['dcb', 'dcz'], 'dcz'],
      ['gzip, deflate, br, zstd', ['dcb', 'dcz'], undefined],
      ['gzip, deflate, br, zstd, dcb;q=0, dcz;q=0', ['dcb', 'dcz'], undefined],
      ['br;q=1, dcz;q=0.5', ['dcb', 'dcz'], undefined],
      ['br;q=0.5, dcz;q=0.8', ['dcb', 'dcz'], 'dcz'],
      ['*', ['dcb', 'dcz'], undefined],
      ['*, dcz;q=0.5', ['dcb', 'dcz'], undefined],
      ['dczx, dcbb, br', ['dcb', 'dcz'], undefined],
      ['dcb', ['dcz'], undefined],
      ['', ['dcb', 'dcz'], undefined],
      [undefined, ['dcb', 'dcz'], undefined],
    ]
    for (const [header, offered, expected] of table) {
      t.equal(
        dictionaryCoding(header, offered, fallbacks),
        expected,
        `${String(header)}, deltas in ${offered.join(' and ')}`,
      )
    }
  },
)

type BrotliWithDictionary = BrotliOptions & { dictionary: Buffer }

/** A delta decoded with node:zlib. */
function decodeDelta(coding: DictionaryCoding, body: Buffer, dictionary: Buffer): Buffer {
  const coded = body.subarray(deltaHeaderBytes(coding))
  return coding === 'dcb'
    ? brotliDecompressSync(coded, { dictionary } as BrotliWithDictionary)
    : zstdDecompressSync(coded, { dictionary })
}

/** The bytes the `zstd` tool decodes from a dcz body, its 40-byte header stripped, with the dictionary file. */
function zstdTool(body: Buffer, dictionaryFile: string): Buffer {
  return execFileSync('zstd', ['-d', '-q', '-c', '-D', dictionaryFile], {
    input: body.subarray(deltaHeaderBytes('dcz')),
    maxBuffer: 16 * 1024 * 1024,
  })
}

t.test(
  'deltas of a build in which one page changed, against the build before it, and the answers with them',
  async (t) => {
    const chunksA = path.join(projectRoot, 'dist', 'client', 'chunks')
    const changed = await buildWithChangedPage('dictionary-test-b')
    t.teardown(changed.remove)
    const chunksB = path.join(changed.distDir, 'client', 'chunks')
    const namesA = new Set(await readdir(chunksA))
    const report = await writeDeltas(chunksB, await dictionaryFilesIn(chunksA))

    // Changed: a new name, or a name A has with other bytes (its hash was taken before the build stamped `?dpl=`).
    const sameBytes = async (name: string) =>
      namesA.has(name) && (await readFile(path.join(chunksA, name))).equals(await readFile(path.join(chunksB, name)))
    const changedChunks: string[] = []
    // A chunk smaller than a delta's own header (36 or 40 bytes) and its frame can have no smaller delta: a page module
    // that only re-exports another page's component is one.
    const tooSmallForADelta = async (name: string) => (await readFile(path.join(chunksB, name))).length < 128
    for (const name of await readdir(chunksB)) {
      if (!dictionaryRule(`/_next/static/chunks/${name}`) || (await sameBytes(name))) continue
      if (!(await tooSmallForADelta(name))) changedChunks.push(name)
    }
    t.ok(
      changedChunks.some((name) => isPageChunk(changed.page.id, name)),
      `the chunk of the changed page (${changed.page.path}) changed`,
    )
    t.ok(
      changedChunks.some((name) => name.startsWith('index-') && name.endsWith('.js')),
      'and the entry chunk that names it',
    )
    // Every chunk that imports another names it with the deployment's `?dpl=`: a new deployment changes them all.
    t.same(
      [...new Set(report.written.map((delta) => delta.chunk))].sort(),
      [...changedChunks].sort(),
      'a delta for each changed chunk, none for the others',
    )
    // A browser offers every kept chunk whose pattern (`<name>-*.js`) the new chunk's URL matches: `guide-*.js` matches
    // `guide-list-<hash>.js` too. Each delta is against one such chunk, and each such chunk has its delta.
    const offered = (chunk: string) =>
      [...namesA].filter((name) => {
        const rule = dictionaryRule(`/_next/static/chunks/${name}`)
        return (
          rule !== undefined &&
          new URLPattern(rule.match, `${origin}/_next/static/chunks/${name}`).test(
            `${origin}/_next/static/chunks/${chunk}`,
          )
        )
      })
    for (const chunk of changedChunks) {
      const against = report.written
        .filter((delta) => delta.chunk === chunk && delta.coding === 'dcz')
        .map((delta) => path.basename(delta.dictionary))
      t.same(
        against.sort(),
        offered(chunk).sort(),
        `${chunk}: a delta against each kept chunk a browser would offer for it`,
      )
    }
    for (const delta of report.written) {
      const content = await readFile(path.join(chunksB, delta.chunk))
      const dictionary = await readFile(delta.dictionary)
      const hash = sha256(dictionary).toString('hex')
      const body = await readFile(path.join(chunksB, `${delta.chunk}.${hash}.${delta.coding}`))
      const label = `${delta.chunk} in ${delta.coding}`
      const magic = deltaMagic[delta.coding]
      t.equal(body.length, delta.bytes)
      t.same(
        [...body.subarray(0, magic.length)],
        delta.coding === 'dcb' ? [0xff, 0x44, 0x43, 0x42] : [0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00],
        `${label}: the magic`,
      )
      t.equal(
        body.subarray(magic.length, magic.length + 32).toString('hex'),
        hash,
        'then the SHA-256 of the dictionary',
      )
      t.ok(decodeDelta(delta.coding, body, dictionary).equals(content), 'node:zlib decodes it to the chunk')
      if (delta.coding === 'dcz')
        t.ok(zstdTool(body, delta.dictionary).equals(content), 'zstd -D decodes it to the chunk')
      t.ok(
        delta.bytes < delta.ordinaryBytes,
        `${delta.bytes} B, below the best ordinary coding (${delta.ordinaryBytes} B)`,
      )
    }
    for (const coding of ['dcb', 'dcz'] as const) {
      t.same(
        [...new Set(report.written.filter((delta) => delta.coding === coding).map((delta) => delta.chunk))].sort(),
        [...changedChunks].sort(),
        `each changed chunk in ${coding}`,
      )
    }
    const entryDeltas = report.written.filter(
      (delta) => delta.chunk.startsWith('index-') && delta.chunk.endsWith('.js'),
    )
    const entry = entryDeltas.find((delta) => delta.coding === 'dcz')!
    const entryDcb = entryDeltas.find((delta) => delta.coding === 'dcb')!
    t.ok(
      entry.bytes < entry.ordinaryBytes / 20,
      `the entry chunk: ${entry.bytes} B in dcz, ${entryDcb.bytes} B in dcb, for ${entry.ordinaryBytes} B in brotli`,
    )
    const smaller = entryDcb.bytes <= entry.bytes ? entryDcb : entry
    t.same(await writeDeltas(chunksB, []), { written: [], notSmaller: 0, tooLarge: 0 }, 'no dictionary: nothing')

    // A delta that is not one: left out at start-up with a coded log line; the server starts.
    const chunkWithDelta = entry.chunk
    const bogusHash = 'ab'.repeat(32)
    await writeFile(
      path.join(chunksB, `${chunkWithDelta}.${bogusHash}.dcz`),
      'not a delta at all, longer than forty-four bytes of header',
    )
    await writeFile(path.join(chunksB, `gone-AAAAAAAA.js.${bogusHash}.dcz`), 'x')
    await writeFile(
      path.join(chunksB, `${chunkWithDelta}.${bogusHash}.dcb`),
      Buffer.concat([deltaMagic.dcb, Buffer.alloc(32), Buffer.from('brotli')]),
    )
    // The app of deployment B: its build, and its copy of the project as the root (@fastify/vite finds the client
    // build from there).
    const { stream, lines: logs } = captureLogs()
    const config = { ...loadConfig({ LOG_LEVEL: 'debug', DIST_DIR: changed.distDir }), rootDir: changed.sourceDir }
    const app = await buildApp(config, { logger: pino(loggerOptions(config.logLevel), stream) })
    t.teardown(() => app.close())
    await app.ready()
    const skipped = logs().filter((line) => line.msg === 'dictionary delta skipped')
    t.same(
      skipped.map((line) => (line.err as { code: string }).code),
      [
        'COURIER_ERR_DICTIONARY_DELTA_CORRUPT',
        'COURIER_ERR_DICTIONARY_DELTA_CORRUPT',
        'COURIER_ERR_DICTIONARY_DELTA_CORRUPT',
      ],
      'the three bad deltas logged with their code',
    )

    const url = `/_next/static/chunks/${entry.chunk}?dpl=${app.deploymentId}`
    const dictionary = await readFile(entry.dictionary)
    const known = `:${sha256(dictionary).toString('base64')}:`
    const content = await readFile(path.join(chunksB, entry.chunk))
    const chrome = 'gzip, deflate, br, zstd, dcb, dcz'
    const get = (headers: Record<string, string>, method: 'GET' | 'HEAD' = 'GET') =>
      app.inject({ method, url, headers })

    const delta = await get({ 'accept-encoding': chrome, 'available-dictionary': known })
    t.equal(delta.statusCode, 200)
    t.equal(delta.headers['content-encoding'], smaller.coding, `the browser takes both: the smaller, ${smaller.coding}`)
    t.equal(delta.headers['content-length'], String(smaller.bytes))
    t.equal(delta.rawPayload.length, smaller.bytes)
    t.equal(delta.headers.vary, 'accept-encoding, available-dictionary')
    t.equal(delta.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(delta.headers['content-type'], 'application/javascript; charset=utf-8')
    t.match(
      delta.headers['use-as-dictionary'],
      /^match="\/_next\/static\/chunks\/index-\*\.js", match-dest=\("script"\)$/,
    )
    t.equal(delta.headers.etag, undefined, 'no validator, as in every coding of a chunk: the hash in the name is one')
    t.ok(decodeDelta(smaller.coding, delta.rawPayload, dictionary).equals(content), 'decodes to the chunk')
    for (const [acceptEncoding, coding] of [
      ['gzip, dcz', 'dcz'],
      ['br, dcb', 'dcb'],
      ['dcz, dcb;q=0.5', 'dcz'],
    ] as const) {
      const one = await get({ 'accept-encoding': acceptEncoding, 'available-dictionary': known })
      t.equal(one.headers['content-encoding'], coding, `${acceptEncoding}: ${coding}`)
      t.equal(one.headers['content-length'], String((coding === 'dcb' ? entryDcb : entry).bytes))
      t.ok(decodeDelta(coding, one.rawPayload, dictionary).equals(content), 'which decodes to the chunk')
    }
    const head = await get({ 'accept-encoding': chrome, 'available-dictionary': known }, 'HEAD')
    t.equal(head.headers['content-encoding'], smaller.coding, 'HEAD: the same headers')
    t.equal(head.headers['content-length'], String(smaller.bytes))
    t.equal(head.rawPayload.length, 0, 'and no body')

    const fallbacks: [string, Record<string, string>, string | undefined][] = [
      [
        'an unknown dictionary',
        { 'accept-encoding': chrome, 'available-dictionary': `:${sha256(Buffer.from('other')).toString('base64')}:` },
        'br',
      ],
      [
        "the corrupt delta's dictionary",
        { 'accept-encoding': chrome, 'available-dictionary': `:${Buffer.from(bogusHash, 'hex').toString('base64')}:` },
        'br',
      ],
      ['a malformed header', { 'accept-encoding': chrome, 'available-dictionary': known.slice(1) }, 'br'],
      ['two headers joined', { 'accept-encoding': chrome, 'available-dictionary': `${known}, ${known}` }, 'br'],
      [
        'no dictionary coding listed',
        { 'accept-encoding': 'gzip, deflate, br, zstd', 'available-dictionary': known },
        'br',
      ],
      [
        'dcb;q=0, dcz;q=0',
        { 'accept-encoding': 'gzip, br, zstd, dcb;q=0, dcz;q=0', 'available-dictionary': known },
        'br',
      ],
      ['dcz below br', { 'accept-encoding': 'br, dcz;q=0.5', 'available-dictionary': known }, 'br'],
      [
        'an unknown dictionary, zstd the best other',
        { 'accept-encoding': 'zstd, dcz', 'available-dictionary': ':' + 'A'.repeat(43) + '=:' },
        'zstd',
      ],
      [
        'an unknown dictionary, gzip the best other',
        { 'accept-encoding': 'gzip, dcz', 'available-dictionary': ':' + 'A'.repeat(43) + '=:' },
        'gzip',
      ],
      ['no Accept-Encoding', { 'available-dictionary': known }, undefined],
      ['no Available-Dictionary', { 'accept-encoding': chrome }, 'br'],
    ]
    for (const [name, headers, coding] of fallbacks) {
      const response = await get(headers)
      t.equal(response.statusCode, 200, `${name}: 200`)
      t.equal(response.headers['content-encoding'], coding, `${name}: ${coding ?? 'the file as it is'}`)
      t.equal(response.headers.vary, 'accept-encoding, available-dictionary', `${name}: Vary names both`)
      t.ok(response.headers['use-as-dictionary'], `${name}: still a dictionary for the next deployment`)
    }
    const plain = await get({})
    t.ok(plain.rawPayload.equals(content), 'no header at all: the chunk itself')

    const font = (await readdir(chunksB)).find((name) => name.endsWith('.woff2'))!
    const fontAnswer = await app.inject({
      url: `/_next/static/chunks/${font}`,
      headers: { 'accept-encoding': chrome, 'available-dictionary': known },
    })
    t.equal(fontAnswer.headers['use-as-dictionary'], undefined, 'a font is no dictionary')
    t.equal(fontAnswer.headers.vary, 'accept-encoding', 'nor varies by one')
    const unchanged = (await readdir(chunksB)).find((name) => name.startsWith('home-') && name.endsWith('.js'))!
    const unchangedAnswer = await app.inject({
      url: `/_next/static/chunks/${unchanged}`,
      headers: { 'accept-encoding': chrome, 'available-dictionary': known },
    })
    t.equal(unchangedAnswer.headers['content-encoding'], 'br', 'a chunk with no delta: its brotli')
    t.equal(unchangedAnswer.headers.vary, 'accept-encoding, available-dictionary', 'with the same Vary')
    t.ok((await stat(path.join(chunksB, `${unchanged}.br`))).size > 0)
  },
)

t.test('a delta is written only where it is smaller than the best ordinary coding', async (t) => {
  const folder = await mkdtemp(path.join(tmpdir(), 'courier-deltas-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  const older = path.join(folder, 'older')
  const newer = path.join(folder, 'newer')
  await Promise.all([older, newer].map((dir) => import('node:fs/promises').then(({ mkdir }) => mkdir(dir))))
  // Unrelated random-looking text: the dictionary does not help, and the chunk's own brotli is smaller.
  await writeFile(
    path.join(older, 'page-AAAAAAAA.js'),
    Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 251)),
  )
  await writeFile(path.join(newer, 'page-BBBBBBBB.js'), 'x'.repeat(4000))
  await writeFile(path.join(newer, 'page-BBBBBBBB.js.br'), Buffer.alloc(10))
  await copyFile(path.join(older, 'page-AAAAAAAA.js'), path.join(newer, 'other-AAAAAAAA.js'))
  const report = await writeDeltas(newer, await dictionaryFilesIn(older))
  t.same(report.written, [], 'nothing written')
  t.equal(report.notSmaller, 2, 'the one pair the pattern names was not smaller, in dcb nor in dcz')
  t.same(
    (await readdir(newer)).filter((name) => name.endsWith('.dcz')),
    [],
  )
})
