/**
 * Images of the content on a running fleet (docs/content.md "Images of the content"): three Courier applications
 * sharing one CONTENT_DIR and a real redis-server. An image added to the folder is served by every instance and
 * through every optimizer at once; a guide that shows it, added and revalidated, draws it with its size everywhere.
 * Run by `npm run test:scale`.
 */
import t from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { contentImages, revalidation } from '../../config/content.ts'
import { testGuidePath, testRoutes } from '../helpers/site-pages.ts'
import { build, type Built } from '../helpers/app.ts'
import { startRedis, waitFor } from './processes.ts'

const token = 'content-images-fleet-token-0123456789abcdef'

t.test(
  'an image added on a running fleet is served everywhere; a guide revalidated draws it with its size',
  async (t) => {
    const guidePath = testGuidePath('fleet-image')
    const redis = await startRedis(t)
    const dir = await mkdtemp(path.join(tmpdir(), 'courier-fleet-images-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    for (const folder of ['guides', 'faq', contentImages.dir]) await mkdir(path.join(dir, folder))
    await writeFile(
      path.join(dir, 'guides', 'first.md'),
      '---\ntitle: "First"\nsummary: "S."\norder: 1\n---\n\n## First\n\nText.\n',
    )
    const fleet: Built[] = []
    for (let index = 0; index < 3; index++)
      fleet.push(await build(t, { ...testRoutes, REDIS_URL: redis.url, REVALIDATE_TOKEN: token, CONTENT_DIR: dir }))
    await waitFor('every instance on redis', () =>
      fleet.every(({ logs }) => logs().some((line) => /redis connected/.test(line.msg))),
    )
    const url = `${contentImages.urlPrefix}fleet.png`
    for (const { app } of fleet) t.equal((await app.inject(url)).statusCode, 404, 'not there yet')
    for (const { app } of fleet) t.equal((await app.inject(guidePath)).statusCode, 404, 'nor the guide')
    // A running fleet has rendered guides before: the timing below is the change's, not this process's first render.
    for (const { app } of fleet) t.equal((await app.inject(testGuidePath('first'))).statusCode, 200, 'another guide')

    await writeFile(
      path.join(dir, contentImages.dir, 'fleet.png'),
      await sharp({ create: { width: 900, height: 300, channels: 3, background: '#123456' } })
        .png()
        .toBuffer(),
    )
    await writeFile(
      path.join(dir, 'guides', 'fleet-image.md'),
      `---\ntitle: "Fleet image"\nsummary: "S."\norder: 2\n---\n\n## Fleet image\n\n![A wide banner](${url})\n`,
    )
    const addedAt = performance.now()
    const revalidated = await fleet[0]!.app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization: `Bearer ${token}` },
      payload: { tags: ['guides'] },
    })
    t.equal(revalidated.statusCode, 200)
    for (const [index, { app }] of fleet.entries()) {
      t.equal((await app.inject(url)).statusCode, 200, `instance ${index}: the image`)
      const optimized = await app.inject({
        url: `/_next/image?url=${encodeURIComponent(url)}&w=640`,
        headers: { accept: 'image/webp' },
      })
      t.equal(optimized.statusCode, 200, `instance ${index}: through the optimizer`)
      const page = await app.inject(guidePath)
      t.equal(page.statusCode, 200, `instance ${index}: the guide`)
      t.match(/<img [^>]*>/.exec(page.body)?.[0], /width="900" height="300"/, `instance ${index}: drawn with its size`)
    }
    t.comment(
      `every instance served the image, its variant and the guide ${(performance.now() - addedAt).toFixed(1)} ms after the files were written`,
    )
  },
)
