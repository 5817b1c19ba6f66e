import t from 'tap'
import vm from 'node:vm'
import { entryLoaderSource } from '../../src/render/entry-loader.ts'

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
    readyState?: 'loading' | 'interactive' | 'complete'
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
  const currentScript = {
    nonce: 'n1',
    dataset: { entry: '/e.js?dpl=1', ...(options.preload === undefined ? {} : { preload: options.preload }) },
  }
  const document = {
    visibilityState: options.visibility ?? 'visible',
    readyState: options.readyState ?? 'complete',
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
  const paint = (...names: string[]) =>
    report?.({ getEntriesByName: (name) => names.filter((entry) => entry === name) })
  return { inserted, listeners, timers, paint, observed: () => observed }
}

const preloadOf = (href: string) => ({
  tag: 'link',
  crossOrigin: '',
  nonce: 'n1',
  fetchPriority: 'low',
  rel: 'modulepreload',
  href,
})
const entryScript = {
  tag: 'script',
  crossOrigin: '',
  nonce: 'n1',
  fetchPriority: 'low',
  type: 'module',
  src: '/e.js?dpl=1',
}

t.test('waits for the first contentful paint, then starts the entry and the page chunks once', async (t) => {
  const loader = runLoader({ paintTypes: ['paint', 'largest-contentful-paint'], preload: '/p.js /q.js' })
  t.same(loader.inserted, [], 'nothing starts before the paint')
  t.same(loader.observed(), { type: 'paint', buffered: true }, 'a paint reported before the loader ran counts too')
  loader.paint('first-paint')
  t.same(loader.inserted, [], 'a paint without content is not enough')
  loader.paint('first-paint', 'first-contentful-paint')
  t.same(loader.inserted, [preloadOf('/e.js?dpl=1'), preloadOf('/p.js'), preloadOf('/q.js'), entryScript])
  loader.paint('first-contentful-paint')
  loader.timers[0]!.callback()
  loader.listeners.get('visibilitychange')!()
  t.equal(loader.inserted.length, 4, 'later signals start nothing more')
})

t.test('a document still streaming gets its code fetched at the paint, and run once it is parsed', async (t) => {
  const loader = runLoader({ paintTypes: ['paint'], preload: '/p.js', readyState: 'loading' })
  loader.paint('first-contentful-paint')
  t.same(
    loader.inserted,
    [preloadOf('/e.js?dpl=1'), preloadOf('/p.js')],
    'fetched, not run: the state and late boundaries are still to come',
  )
  loader.listeners.get('DOMContentLoaded')!()
  t.same(loader.inserted.at(-1), entryScript, 'the entry runs when the document is parsed, as a deferred script would')
  t.equal(loader.inserted.length, 3)
})

t.test('a timer bounds the wait', async (t) => {
  const loader = runLoader({ paintTypes: ['paint'] })
  t.equal(loader.timers.length, 1)
  t.equal(loader.timers[0]!.ms, 2_500, 'the configured bound')
  loader.timers[0]!.callback()
  t.same(loader.inserted, [preloadOf('/e.js?dpl=1'), entryScript], 'the entry, and no chunk when the page names none')
})

t.test('a tab hidden before its first paint starts the code when it hides', async (t) => {
  const loader = runLoader({ paintTypes: ['paint'] })
  loader.listeners.get('visibilitychange')!()
  t.equal(loader.inserted.length, 2)
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
    t.same(loader.inserted.at(-1), entryScript, name)
    t.equal(loader.timers.length, 0, `${name}: no timer left behind`)
  }
})
