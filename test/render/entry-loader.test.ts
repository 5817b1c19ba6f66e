import t from 'tap'
import vm from 'node:vm'
import { entryLoaderSource, entryLoaderUrls } from '../../src/render/entry-loader.ts'

interface Inserted {
  tag: string
  [property: string]: unknown
}

/** Runs the loader in a small stand-in for a browser, the way it runs in a document's head. */
function runLoader(
  options: {
    visibility?: 'visible' | 'hidden'
    paintTypes?: readonly string[] | undefined
    noObserver?: boolean
    observeThrows?: boolean
    preload?: string
  } = {},
) {
  const inserted: Inserted[] = []
  const listeners = new Map<string, () => void>()
  const timers: { callback: () => void; ms: number }[] = []
  let report: ((list: { getEntriesByName(name: string): unknown[] }) => void) | undefined
  let observed: unknown
  class FakeObserver {
    static supportedEntryTypes = options.paintTypes
    constructor(callback: typeof report) {
      report = callback
    }
    observe(init: unknown) {
      if (options.observeThrows) throw new TypeError('type is not supported')
      observed = init
    }
  }
  const currentScript = { nonce: 'n1', dataset: { entry: '/e.js?dpl=1', ...(options.preload === undefined ? {} : { preload: options.preload }) } }
  const document = {
    visibilityState: options.visibility ?? 'visible',
    currentScript,
    head: { appendChild: (element: Inserted) => inserted.push(element) },
    createElement: (tag: string) => ({ tag }),
    addEventListener: (type: string, listener: () => void) => listeners.set(type, listener),
  }
  const context: Record<string, unknown> = {
    document,
    setTimeout: (callback: () => void, ms: number) => timers.push({ callback, ms }),
  }
  if (!options.noObserver) context.PerformanceObserver = FakeObserver
  context.window = context
  vm.runInNewContext(entryLoaderSource(2_500), context)
  const paint = (...names: string[]) => report?.({ getEntriesByName: (name) => names.filter((entry) => entry === name) })
  return { inserted, listeners, timers, paint, observed: () => observed }
}

t.test('waits for the first contentful paint, then starts the entry and the page chunks once', async (t) => {
  const loader = runLoader({ paintTypes: ['paint', 'largest-contentful-paint'], preload: '/p.js /q.js' })
  t.same(loader.inserted, [], 'nothing starts before the paint')
  t.same(loader.observed(), { type: 'paint', buffered: true }, 'a paint reported before the loader ran counts too')
  loader.paint('first-paint')
  t.same(loader.inserted, [], 'a paint without content is not enough')
  loader.paint('first-paint', 'first-contentful-paint')
  t.same(loader.inserted, [
    { tag: 'script', crossOrigin: '', nonce: 'n1', fetchPriority: 'low', type: 'module', src: '/e.js?dpl=1' },
    { tag: 'link', crossOrigin: '', nonce: 'n1', fetchPriority: 'low', rel: 'modulepreload', href: '/p.js' },
    { tag: 'link', crossOrigin: '', nonce: 'n1', fetchPriority: 'low', rel: 'modulepreload', href: '/q.js' },
  ])
  loader.paint('first-contentful-paint')
  loader.timers[0]!.callback()
  loader.listeners.get('visibilitychange')!()
  t.equal(loader.inserted.length, 3, 'later signals start nothing more')
})

t.test('a timer bounds the wait', async (t) => {
  const loader = runLoader({ paintTypes: ['paint'] })
  t.equal(loader.timers.length, 1)
  t.equal(loader.timers[0]!.ms, 2_500, 'the configured bound')
  loader.timers[0]!.callback()
  t.same(loader.inserted.map((element) => element.src), ['/e.js?dpl=1'], 'the entry, and no preload when the page names none')
})

t.test('a tab hidden before its first paint starts the code when it hides', async (t) => {
  const loader = runLoader({ paintTypes: ['paint'] })
  loader.listeners.get('visibilitychange')!()
  t.equal(loader.inserted.length, 1)
})

t.test('starts at once where waiting would gain nothing or never end', async (t) => {
  for (const [name, options] of [
    ['a document that is not visible (background tab, prerender)', { visibility: 'hidden', paintTypes: ['paint'] }],
    ['a browser without paint timing', { paintTypes: ['navigation', 'resource'] }],
    ['a browser without supportedEntryTypes', { paintTypes: undefined }],
    ['a browser without PerformanceObserver', { noObserver: true }],
    ['a browser that refuses the observer', { paintTypes: ['paint'], observeThrows: true }],
  ] as const) {
    const loader = runLoader(options)
    t.equal(loader.inserted.length, 1, name)
    t.equal(loader.timers.length, 0, `${name}: no timer left behind`)
  }
})

t.test('entryLoaderUrls reads what a served loader starts', async (t) => {
  const html =
    '<head><script nonce="x" data-entry="/e.js?a=1&amp;b=2" data-preload="/p.js /q.js">…</script>' +
    '<script data-entry="/f.js">…</script><script type="module" src="/ignored.js"></script></head>'
  t.same(entryLoaderUrls(html), { entries: ['/e.js?a=1&b=2', '/f.js'], preloads: ['/p.js', '/q.js'] })
  t.same(entryLoaderUrls('<html></html>'), { entries: [], preloads: [] })
})
