/**
 * What a content image costs (docs/content.md "Images of the content"): streamed from its descriptor on a real socket
 * (a slow client holds a chunk of memory, not the file; one that leaves closes it), its ETag and pixel size learnt once
 * per version of the file, so HEAD, 304 and pages that draw it read nothing but the opening; a file over the limit is
 * a 404 with one warn line per version. Bytes read are the process's own (`rchar` of /proc/self/io: every read system
 * call, libuv's threads included).
 */
import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readlink, rm, truncate, writeFile } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import sharp from 'sharp'
import { contentImages } from '../../config/content.ts'
import { imageOptimizer } from '../../config/images.ts'
import { testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'
import { build } from '../helpers/app.ts'

const mib = 1024 * 1024

// A full collection before each measure of memory: what is left is what the answers hold.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void
const bigUrl = `${contentImages.urlPrefix}big.png`

/** Bytes this process has read by system calls since it started. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1])
}

/** A PNG of `width`x`height` padded after its end to `bytes` (a browser and sharp read it as the small image). */
async function paddedPng(width: number, height: number, bytes: number): Promise<Buffer> {
  const png = await sharp({ create: { width, height, channels: 3, background: '#336699' } })
    .png()
    .toBuffer()
  const padded = Buffer.alloc(bytes, 7)
  png.copy(padded)
  return padded
}

const guide = (title: string, order: number, body: string) =>
  `---\ntitle: "${title}"\nsummary: "A guide of the test's own."\norder: ${order}\n---\n\n## ${title}\n\n${body}\n`

/** A content folder with `images/big.png`: 10 MB, the largest image allowed. */
async function contentDir(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-content-image-versions-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const folder of ['guides', 'faq', contentImages.dir]) await mkdir(path.join(dir, folder))
  await writeFile(
    path.join(dir, contentImages.dir, 'big.png'),
    await paddedPng(800, 600, imageOptimizer.maxSourceBytes),
  )
  return dir
}

/** The descriptors of this process open on `file`. */
async function descriptorsOn(file: string): Promise<number> {
  let count = 0
  for (const fd of await readdir('/proc/self/fd')) {
    if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === file) count++
  }
  return count
}

t.test(
  'HEAD and If-None-Match read nothing but the opening: under 1 MB for 100 answers of a 10 MB image',
  async (t) => {
    const dir = await contentDir(t)
    const { app } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
    const first = await app.inject(bigUrl)
    t.equal(first.statusCode, 200)
    t.equal(first.rawPayload.length, imageOptimizer.maxSourceBytes, 'the whole file')
    const etag = String(first.headers.etag)
    const before = bytesRead()
    for (let request = 0; request < 50; request++) {
      const head = await app.inject({ method: 'HEAD', url: bigUrl })
      t.equal(head.statusCode, 200)
      t.equal(head.headers['content-length'], String(imageOptimizer.maxSourceBytes), 'its length, unread')
      t.equal(head.headers.etag, etag)
      const revisit = await app.inject({ url: bigUrl, headers: { 'if-none-match': etag } })
      t.equal(revisit.statusCode, 304)
    }
    const read = bytesRead() - before
    t.ok(read < mib, `${read} bytes read for 100 answers`)
  },
)

t.test('a file written again gets a new ETag and pixel size; one over the limit is a 404, told once', async (t) => {
  const dir = await contentDir(t)
  const file = path.join(dir, contentImages.dir, 'chart.png')
  await writeFile(file, await paddedPng(800, 600, 4096))
  for (const [slug, order] of [
    ['before', 1],
    ['after', 2],
  ] as const) {
    const body = `![A chart](${contentImages.urlPrefix}chart.png)`
    await writeFile(path.join(dir, 'guides', `${slug}.md`), guide(slug, order, body))
  }
  const { app, logs } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
  const before = await app.inject(`${contentImages.urlPrefix}chart.png`)
  t.match((await app.inject(testGuidePath('before'))).body, /<img [^>]*width="800"/)
  await sleep(20)
  // In place, the same length: the same inode and size, another time of change.
  await writeFile(file, await paddedPng(1200, 900, 4096))
  const after = await app.inject(`${contentImages.urlPrefix}chart.png`)
  t.not(after.headers.etag, before.headers.etag, 'a new ETag')
  t.equal((await sharp(after.rawPayload).metadata()).width, 1200, 'the new bytes')
  t.match((await app.inject(testGuidePath('after'))).body, /<img [^>]*width="1200"/, 'and its new size')

  await truncate(path.join(dir, contentImages.dir, 'big.png'), imageOptimizer.maxSourceBytes + 1)
  for (let request = 0; request < 5; request++) {
    t.equal((await app.inject(bigUrl)).statusCode, 404, 'over the limit: 404')
    t.equal((await app.inject({ method: 'HEAD', url: bigUrl })).statusCode, 404)
  }
  const told = logs().filter((line) => line.msg === 'content image too large: not served')
  t.equal(told.length, 1, 'one warn line for the version')
  t.match(told[0], { level: 40, file: 'images/big.png', bytes: imageOptimizer.maxSourceBytes + 1 })
  t.notOk(
    logs().some((line) => line.level >= 50),
    'no error line',
  )
})

t.test('a guide that draws a 10 MB image 400 times reads its header once; other pages are served', async (t) => {
  const dir = await contentDir(t)
  const many = Array.from({ length: 400 }, (_, index) => `![Figure ${index}](${bigUrl})`).join('\n\n')
  await writeFile(path.join(dir, 'guides', 'many.md'), guide('Many', 1, many))
  await writeFile(path.join(dir, 'guides', 'again.md'), guide('Again', 2, many))
  await writeFile(path.join(dir, 'guides', 'plain.md'), guide('Plain', 3, 'No image here.'))
  await writeFile(path.join(dir, 'guides', 'warm.md'), guide('Warm', 4, 'The first render loads the renderer.'))
  const { app } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
  t.equal((await app.inject(testGuidePath('warm'))).statusCode, 200)
  const before = bytesRead()
  const [page, again, plain, list] = await Promise.all([
    app.inject(testGuidePath('many')),
    app.inject(testGuidePath('again')),
    app.inject(testGuidePath('plain')),
    app.inject(testGuidesPath),
  ])
  const read = bytesRead() - before
  t.equal(page.statusCode, 200)
  t.equal(page.body.match(/<img [^>]*width="800"/g)?.length, 400, 'every figure drawn with its size')
  t.equal(again.statusCode, 200)
  t.equal(plain.statusCode, 200, 'another guide')
  t.equal(list.statusCode, 200, 'the list of guides')
  t.ok(read < mib, `${read} bytes read for two pages of 400 figures each`)
})

/** A GET of `url` on a raw socket that reads nothing (a reader stuck at its first bytes). */
function stalledRequest(port: number, url: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`GET ${url} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
      resolve(socket)
    })
    socket.pause()
    socket.on('error', reject)
  })
}

t.test('20 readers that stop reading hold chunks, not the file; readers that leave close it', async (t) => {
  const dir = await contentDir(t)
  const { app } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
  await app.inject(bigUrl)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  collectGarbage()
  const before = process.memoryUsage()
  const sockets = await Promise.all(Array.from({ length: 20 }, () => stalledRequest(port, bigUrl)))
  // Long enough for each answer to fill its socket's buffers and stop.
  await sleep(1_500)
  collectGarbage()
  const during = process.memoryUsage()
  const grown = (during.arrayBuffers - before.arrayBuffers) / mib
  t.ok(grown < 40, `buffers grew by ${grown.toFixed(1)} MiB for 20 stalled readers of 10 MiB (not 200)`)
  const file = path.join(dir, contentImages.dir, 'big.png')
  t.equal(await descriptorsOn(file), 20, 'each answer has its descriptor open')

  // One reader takes it all: the same bytes as the file.
  const whole = await new Promise<number>((resolve) => {
    let length = 0
    sockets[0]!.on('data', (chunk: Buffer) => {
      length += chunk.length
      if (length >= imageOptimizer.maxSourceBytes) resolve(length)
    })
    sockets[0]!.resume()
  })
  t.ok(whole > imageOptimizer.maxSourceBytes, 'the head and the whole file')
  for (const socket of sockets) socket.destroy()
  for (let wait = 0; wait < 50 && (await descriptorsOn(file)) > 0; wait++) await sleep(20)
  t.equal(await descriptorsOn(file), 0, 'every descriptor closed once its reader left')
})
