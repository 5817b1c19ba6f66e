/**
 * Images in the browser: the test page /__test/images (test/site/) draws every image of the site's public folder
 * through the optimizer at an allowed width that fits what is drawn, in a format Chromium accepts, without moving the
 * layout; an image with priority is preloaded at high priority.
 */
import t from 'tap'
import { images } from '../../config/images.ts'
import { heroPage, heroSelector, heroWidths, isRequestOf } from './hero.ts'
import { bounded, startSuite, timeouts, unexpectedConsoleErrors, type Session } from './harness.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })
const imagesPage = '/__test/images'
const imagesSelector = 'main .test-images img'

/** How many images the page draws: one per file of the site's public images folder, as its page data says. */
async function publicImageCount(): Promise<number> {
  const response = await fetch(`${suite.origin}/_next/data/${suite.deploymentId}${imagesPage}.json`)
  return ((await response.json()) as { pageProps: { images: unknown[] } }).pageProps.images.length
}
const allowedWidths = [...images.imageSizes, ...images.deviceSizes].sort((a, b) => a - b)

/** Sums layout-shift entries from the first paint on (buffered), into window.__layoutShift. */
async function observeLayoutShift(session: Session): Promise<void> {
  await session.page.addInitScript(() => {
    const state = window as unknown as { __layoutShift: number }
    state.__layoutShift = 0
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
        if (!entry.hadRecentInput) state.__layoutShift += entry.value
      }
    }).observe({ type: 'layout-shift', buffered: true })
  })
}

interface DrawnImage {
  currentSrc: string
  drawnWidth: number
  naturalWidth: number
  complete: boolean
  loading: string
  fetchPriority: string
  hasSize: boolean
}

async function drawnImages(session: Session, selector: string): Promise<DrawnImage[]> {
  return session.page.locator(selector).evaluateAll((elements) =>
    (elements as HTMLImageElement[]).map((image) => ({
      currentSrc: image.currentSrc,
      drawnWidth: image.getBoundingClientRect().width,
      naturalWidth: image.naturalWidth,
      complete: image.complete,
      loading: image.loading,
      fetchPriority: image.getAttribute('fetchpriority') ?? '',
      hasSize: image.hasAttribute('width') && image.hasAttribute('height'),
    })),
  )
}

/** Scrolls every image into view (they are lazy) and waits until each one has decoded. */
async function loadAll(session: Session, selector: string): Promise<void> {
  const count = await session.page.locator(selector).count()
  for (let index = 0; index < count; index += 1)
    await session.page.locator(selector).nth(index).scrollIntoViewIfNeeded()
  await bounded(
    session.page.waitForFunction(
      (query) =>
        [...document.querySelectorAll<HTMLImageElement>(query)].every(
          (image) => image.complete && image.naturalWidth > 0,
        ),
      selector,
    ),
    timeouts.settleMs * 2,
    'loading the images',
  )
}

t.test(
  'a page of images loads every image through the optimizer at an allowed width that fits, without layout shift',
  async (t) => {
    const session = await suite.open(t)
    await observeLayoutShift(session)
    await session.goto(imagesPage)
    t.ok(await session.waitForHydration(), 'hydrated')
    const selector = imagesSelector
    await loadAll(session, selector)
    const viewport = await session.page.evaluate(() => ({ width: window.innerWidth, ratio: window.devicePixelRatio }))
    const viewportCap = allowedWidths.find((width) => width >= viewport.width * viewport.ratio)!

    const drawn = await drawnImages(session, selector)
    const count = await publicImageCount()
    t.ok(count > 0, 'the site has public images')
    t.equal(drawn.length, count, `the ${count} images of the public folder`)
    for (const image of drawn) {
      const url = new URL(image.currentSrc)
      const width = Number(url.searchParams.get('w'))
      t.equal(url.pathname, '/_next/image', `${image.currentSrc}: through the optimizer`)
      t.match(url.searchParams.get('url'), /^\/images\/[\w.-]+$/, 'a local image')
      t.ok(allowedWidths.includes(width), `w=${width} is an allowed width`)
      t.ok(width >= image.drawnWidth * viewport.ratio, `w=${width} covers the ${image.drawnWidth} px it is drawn at`)
      t.ok(width <= viewportCap, `w=${width} fits the ${viewport.width} px viewport (at most ${viewportCap})`)
      t.ok(image.hasSize, 'width and height attributes')
      t.equal(image.loading, 'lazy', 'lazy below the fold')
    }

    const imageResponses = session.recording.requests.filter(
      (request) => new URL(request.url).pathname === '/_next/image',
    )
    t.ok(imageResponses.length >= count, `${imageResponses.length} optimizer requests`)
    t.ok(
      imageResponses.every((request) => request.status === 200),
      'every optimizer request answered 200',
    )
    t.notOk(
      session.recording.requests.some((request) => new URL(request.url).pathname.startsWith('/images/')),
      'no original is fetched',
    )

    const shift = await session.page.evaluate(() => (window as unknown as { __layoutShift: number }).__layoutShift)
    t.ok(shift < 0.001, `cumulative layout shift ${shift} is ~0`)
    await session.settle()
    t.same(unexpectedConsoleErrors(session.recording), [], 'no console errors')
    t.same(session.recording.pageErrors, [], 'no page errors')
  },
)

t.test('the optimizer answers Chromium in AVIF', async (t) => {
  const session = await suite.open(t)
  await session.goto(imagesPage)
  await loadAll(session, imagesSelector)
  const first = (await drawnImages(session, imagesSelector))[0]!
  const response = await session.page.request.get(first.currentSrc, {
    headers: { accept: 'image/avif,image/webp,image/apng,image/*,*/*;q=0.8' },
  })
  t.equal(response.status(), 200)
  t.equal(response.headers()['content-type'], 'image/avif')
  t.equal(response.headers().vary, 'Accept')
  t.match(response.headers()['x-image-cache'], /^(HIT|STALE)$/, 'the browser already filled the cache')
})

t.test(
  'an image with priority loads eagerly at high priority and is preloaded once, with the widths it can use',
  async (t) => {
    const session = await suite.open(t)
    await observeLayoutShift(session)
    await session.goto(heroPage)
    t.ok(await session.waitForHydration(), 'hydrated')
    await loadAll(session, heroSelector)
    const [hero] = await drawnImages(session, heroSelector)
    t.ok(hero, 'a hero image')
    t.equal(hero!.loading, 'eager')
    t.equal(hero!.fetchPriority, 'high')
    t.match(new URL(hero!.currentSrc).pathname, '/_next/image')
    const preloads = await session.page.evaluate(() =>
      [...document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="image"]')].map((link) => ({
        srcset: link.getAttribute('imagesrcset'),
        sizes: link.getAttribute('imagesizes'),
        fetchPriority: link.getAttribute('fetchpriority'),
      })),
    )
    t.equal(preloads.length, 1, 'one preload of the hero, not two')
    const heroImage = session.page.locator(heroSelector)
    t.equal(preloads[0]?.srcset, await heroImage.getAttribute('srcset'), 'the preload asks for what the image will')
    t.equal(preloads[0]?.sizes, await heroImage.getAttribute('sizes'))
    t.equal(preloads[0]?.fetchPriority, 'high')
    const widths = [...String(preloads[0]?.srcset).matchAll(/ (\d+)w/g)].map((match) => Number(match[1]))
    const intrinsic = Number(await heroImage.getAttribute('width'))
    const src = new URL(hero!.currentSrc).searchParams.get('url')!
    t.same(
      widths,
      heroWidths(intrinsic),
      `from the narrowest column at 1x to the widest at 3x (a source ${intrinsic} px wide)`,
    )
    const shift = await session.page.evaluate(() => (window as unknown as { __layoutShift: number }).__layoutShift)
    t.ok(shift < 0.001, `cumulative layout shift ${shift} is ~0`)
    await session.settle()
    const heroRequests = session.recording.requests.filter(
      (request) => request.url.includes('/_next/image?') && isRequestOf(request.url, src),
    )
    t.equal(
      new Set(heroRequests.map((request) => request.url)).size,
      1,
      'preload and image fetch one and the same width',
    )
    t.same(
      session.recording.console.filter((entry) => /preload/i.test(entry.text)),
      [],
      'no preload warning',
    )
  },
)
