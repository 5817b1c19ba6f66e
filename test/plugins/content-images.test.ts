/**
 * Images of the content (docs/content.md "Images of the content"): CONTENT_DIR/images/<file> served at
 * /content/images/<file> by the content's rules, revalidated like pages, local sources of /_next/image keyed by their
 * bytes, and drawn with their size when a guide's Markdown shows one. The content is a folder of the test's own; the
 * page that shows a guide is the test build's (test/site/pages/), whatever pages the site has.
 */
import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { contentImages } from '../../config/content.ts'
import { testGuidePath, testRoutes } from '../helpers/site-pages.ts'
import { build } from '../helpers/app.ts'

/** The test build's guide page (test/site/pages/), whatever pages the site has. */
const guidePath = testGuidePath

const pngOf = (width: number, height: number, background = '#336699') =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer()

const guide = (title: string, body: string) =>
  `---\ntitle: "${title}"\nsummary: "A guide of the test's own."\norder: 1\n---\n\n## ${title}\n\n${body}\n`

async function contentDir(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-content-images-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const folder of ['guides', 'faq', contentImages.dir]) await mkdir(path.join(dir, folder))
  await writeFile(path.join(dir, contentImages.dir, 'chart.png'), await pngOf(800, 600))
  return dir
}

t.test(
  'served as they are: type, strong ETag, revalidated, sandboxed; only image names, only regular files inside',
  async (t) => {
    const dir = await contentDir(t)
    const outside = await mkdtemp(path.join(tmpdir(), 'courier-outside-'))
    t.teardown(() => rm(outside, { recursive: true, force: true }))
    await writeFile(path.join(outside, 'secret.png'), await pngOf(10, 10))
    await symlink(path.join(outside, 'secret.png'), path.join(dir, contentImages.dir, 'secret.png'))
    await writeFile(path.join(dir, contentImages.dir, 'notes.txt'), 'not an image')
    await writeFile(path.join(dir, contentImages.dir, 'LOUD.PNG'), await pngOf(10, 10))
    await writeFile(
      path.join(dir, contentImages.dir, 'drawing.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    )
    const { app, logs } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
    const image = await app.inject(`${contentImages.urlPrefix}chart.png`)
    t.equal(image.statusCode, 200)
    t.equal(image.headers['content-type'], 'image/png')
    t.match(image.headers.etag, /^"[\w-]+"$/, 'a strong ETag')
    t.equal(image.headers['cache-control'], 'public, max-age=0, must-revalidate')
    t.equal(image.headers['content-security-policy'], "script-src 'none'; sandbox")
    t.equal(image.headers['x-content-type-options'], 'nosniff')
    t.equal((await sharp(image.rawPayload).metadata()).width, 800, 'the bytes of the file')
    const revisit = await app.inject({
      url: `${contentImages.urlPrefix}chart.png`,
      headers: { 'if-none-match': String(image.headers.etag) },
    })
    t.equal(revisit.statusCode, 304)
    const head = await app.inject({ method: 'HEAD', url: `${contentImages.urlPrefix}chart.png` })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '')
    for (const name of ['secret.png', 'notes.txt', 'LOUD.PNG', 'drawing.svg', 'nothing.png', '.hidden.png']) {
      t.equal((await app.inject(`${contentImages.urlPrefix}${name}`)).statusCode, 404, `${name}: 404`)
    }
    const traversal = await app.inject(`${contentImages.urlPrefix}..%2Fguides%2Fx.md`)
    t.ok([400, 404].includes(traversal.statusCode), `an encoded way out of the folder: ${traversal.statusCode}`)
    t.ok(
      logs().some((line) => line.msg === 'content file refused' && line.file === 'images/secret.png'),
      'the link out, with a warn line',
    )
    t.equal((await app.inject({ method: 'POST', url: `${contentImages.urlPrefix}chart.png` })).statusCode, 405)

    const withSvg = await build(t, { ...testRoutes, CONTENT_DIR: dir, IMAGES_ALLOW_SVG: 'true' })
    const svg = await withSvg.app.inject(`${contentImages.urlPrefix}drawing.svg`)
    t.equal(svg.statusCode, 200, 'SVG with IMAGES_ALLOW_SVG')
    t.equal(svg.headers['content-security-policy'], "script-src 'none'; sandbox", 'its scripts never run')
  },
)

t.test(
  'added, replaced and removed while the server runs: served, changed and 404 at once, through the optimizer too',
  async (t) => {
    const dir = await contentDir(t)
    const { app } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
    const file = path.join(dir, contentImages.dir, 'late.png')
    const optimized = (name: string) =>
      app.inject({
        url: `/_next/image?url=${encodeURIComponent(contentImages.urlPrefix + name)}&w=640`,
        headers: { accept: 'image/webp' },
      })
    t.equal((await app.inject(`${contentImages.urlPrefix}late.png`)).statusCode, 404)
    t.equal((await optimized('late.png')).statusCode, 404, 'the optimizer: 404 for a content image that is not there')
    await writeFile(file, await pngOf(1200, 900, '#aa3300'))
    const added = await app.inject(`${contentImages.urlPrefix}late.png`)
    t.equal(added.statusCode, 200, 'added: served without a restart')
    const first = await optimized('late.png')
    t.equal(first.statusCode, 200)
    t.equal(first.headers['content-type'], 'image/webp')
    t.equal((await sharp(first.rawPayload).metadata()).width, 640)
    t.equal((await optimized('late.png')).headers['x-image-cache'], 'HIT', 'the same bytes: the same variant')
    await writeFile(file, await pngOf(1200, 900, '#00aa33'))
    const replaced = await app.inject(`${contentImages.urlPrefix}late.png`)
    t.not(replaced.headers.etag, added.headers.etag, 'replaced: a new ETag')
    const again = await optimized('late.png')
    t.equal(again.headers['x-image-cache'], 'MISS', 'replaced: a new variant, never the old one')
    t.not(again.headers.etag, first.headers.etag)
    await unlink(file)
    t.equal((await app.inject(`${contentImages.urlPrefix}late.png`)).statusCode, 404, 'removed: 404 at once')
    t.equal((await optimized('late.png')).statusCode, 404)
  },
)

t.test(
  'a guide draws its image with the size read from the file; a missing image is logged; alt text is required',
  async (t) => {
    const dir = await contentDir(t)
    await writeFile(
      path.join(dir, 'guides', 'with-image.md'),
      guide('With image', `![A chart of requests](${contentImages.urlPrefix}chart.png)`),
    )
    await writeFile(
      path.join(dir, 'guides', 'missing-image.md'),
      guide('Missing image', `![Not there yet](${contentImages.urlPrefix}later.png)`),
    )
    await writeFile(path.join(dir, 'guides', 'no-alt.md'), guide('No alt', `![](${contentImages.urlPrefix}chart.png)`))
    const { app, logs } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
    const page = await app.inject(guidePath('with-image'))
    t.equal(page.statusCode, 200)
    const img = /<img [^>]*>/.exec(page.body)?.[0] ?? ''
    t.match(img, 'alt="A chart of requests"')
    t.match(img, 'width="800"', 'its width, read from the file')
    t.match(img, 'height="600"')
    t.match(
      img,
      `srcSet="/_next/image?url=${encodeURIComponent(`${contentImages.urlPrefix}chart.png`)}&amp;w=`,
      'through the optimizer',
    )
    const data = await app.inject(`/_next/data/${app.deploymentId}${guidePath('with-image')}.json`)
    t.match(data.body, '"width":800', 'in the page data too: the client draws the same')

    const missing = await app.inject(guidePath('missing-image'))
    t.equal(missing.statusCode, 200, 'a missing image: the page still renders')
    t.ok(
      logs().some(
        (line) =>
          line.msg === 'content image missing: drawn without its size' &&
          line.image === `${contentImages.urlPrefix}later.png`,
      ),
    )

    const noAlt = await app.inject(guidePath('no-alt'))
    t.equal(noAlt.statusCode, 500)
    t.ok(
      logs().some((line) =>
        /no-alt\.md is invalid: the image \/content\/images\/chart\.png has no alt text/.test(
          String((line.err as { message?: string } | undefined)?.message),
        ),
      ),
      'the file and the rule in the log',
    )
  },
)
