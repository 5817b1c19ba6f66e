/**
 * Images in every engine: the test page /__test/images (test/site/) draws each image of the site's public folder
 * through the optimizer, in the format the engine's own
 * `Accept` asks for (AVIF, else WebP, else the source's JPEG), and the engine decodes what it gets (the suite prints
 * which format each engine got); an image with priority is preloaded once, at the widths it can use.
 */
import t from 'tap'
import { negotiateFormat } from '../../../src/images/negotiate.ts'
import { timeouts } from '../harness.ts'
import { startJourneys } from '../journey.ts'
import { heroPage, heroSelector, heroWidths, isRequestOf } from '../hero.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const mediaTypes: Record<string, string> = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' }

t.test(
  'a page of images: every image through the optimizer, in the format this engine asks for, decoded',
  async (t) => {
    const session = await suite.open(t)
    await session.goto('/__test/images')
    t.ok(await session.waitForHydration(), 'hydrated')
    const count = await session.evaluate(() => document.querySelectorAll('main .test-images img').length, null)
    t.ok(count > 0, `the images of the public folder (${count})`)
    // They are lazy: bring each into view, then wait until every one has decoded.
    for (let index = 0; index < count; index += 1) {
      await session.evaluate((at) => document.querySelectorAll('main .test-images img')[at]!.scrollIntoView(), index)
    }
    t.ok(
      await session.waitFor(
        () =>
          [...document.querySelectorAll<HTMLImageElement>('main .test-images img')].every(
            (image) => image.complete && image.naturalWidth > 0,
          ),
        null,
        timeouts.settleMs * 2,
      ),
      'every image decoded',
    )
    const drawn = await session.evaluate(
      () => [...document.querySelectorAll<HTMLImageElement>('main .test-images img')].map((image) => image.currentSrc),
      null,
    )
    for (const source of drawn) t.equal(new URL(source).pathname, '/_next/image', `${source}: through the optimizer`)

    const fetched = session.requests().filter((request) => new URL(request.url).pathname === '/_next/image')
    t.ok(fetched.length >= count, `${fetched.length} optimizer requests`)
    const accept = fetched[0]?.accept ?? ''
    const format = negotiateFormat(accept, 'jpeg')
    t.comment(`${suite.engine} asks for images with Accept: ${accept} and gets ${format}`)
    for (const request of fetched) {
      t.equal(request.dest, 'image', 'fetched as an image')
      t.equal(request.accept, accept, 'the same Accept for every image')
      t.equal(request.status, 200, 'answered 200')
      t.equal(request.responseHeaders?.['content-type'], mediaTypes[format], `served as ${format}`)
      t.equal(request.responseHeaders?.vary, 'Accept', 'Vary: Accept')
    }
    t.notOk(
      session.requests().some((request) => new URL(request.url).pathname.startsWith('/images/')),
      'no original fetched',
    )
    t.same(await session.consoleErrors(), [], 'no console error')
  },
)

t.test('an image with priority: eager, high priority, preloaded once at the widths it can use', async (t) => {
  const session = await suite.open(t)
  await session.goto(heroPage)
  t.ok(await session.waitForHydration(), 'hydrated')
  t.ok(
    await session.waitFor(
      (selector) => {
        const hero = document.querySelector<HTMLImageElement>(selector)
        return hero !== null && hero.complete && hero.naturalWidth > 0
      },
      heroSelector,
      10_000,
    ),
    'the hero decoded',
  )
  const hero = await session.evaluate((selector) => {
    const image = document.querySelector<HTMLImageElement>(selector)!
    const links = [...document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="image"]')]
    const link = links[0]
    return {
      preloads: links.length,
      srcset: image.getAttribute('srcset'),
      loading: image.getAttribute('loading'),
      fetchPriority: image.getAttribute('fetchpriority'),
      currentSrc: image.currentSrc,
      sizes: image.getAttribute('sizes'),
      width: Number(image.getAttribute('width')),
      preload: link ? { srcset: link.getAttribute('imagesrcset') ?? '', sizes: link.getAttribute('imagesizes') } : null,
    }
  }, heroSelector)
  t.equal(hero.loading, 'eager')
  t.equal(hero.fetchPriority, 'high')
  t.equal(new URL(hero.currentSrc).pathname, '/_next/image')
  t.equal(hero.preloads, 1, "one preload of the hero (React's, with the shell), not two")
  t.equal(hero.preload?.srcset, hero.srcset, 'the preload asks for what the image will')
  t.equal(hero.preload?.sizes, hero.sizes)
  const widths = [...(hero.srcset ?? '').matchAll(/ (\d+)w/g)].map((match) => Number(match[1]))
  t.same(
    widths,
    heroWidths(hero.width),
    `from the narrowest column at 1x to the widest at 3x (a source ${hero.width} px wide)`,
  )
  const src = new URL(hero.currentSrc).searchParams.get('url')!
  const fetched = session
    .requests()
    .filter((request) => request.url.includes('/_next/image?') && isRequestOf(request.url, src))
  t.equal(new Set(fetched.map((request) => request.url)).size, 1, 'preload and image fetch one and the same width')
})
