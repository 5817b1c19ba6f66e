import { router as timings } from '../../config/router.ts'
import type { DocumentState } from '../../src/common/document-state.ts'
import { createPageMatcher } from '../../src/common/match.ts'
import { pageDataUrl } from '../../src/common/page-data.ts'
import type { PageAnswer } from '../../src/common/page-data.ts'
import type { PageRoute } from '../../src/common/page-types.ts'
import { pageModule, type PageComponent, type PageModule } from '../page-modules.ts'
import { createDataCache } from './data-cache.ts'
import { hardNavigate } from './hard-navigation.ts'
import { HistoryEntries } from './history.ts'
import { createNearViewport } from './near-viewport.ts'
import { fetchPageData } from './page-data.ts'
import { mayBeRedirected } from './redirect-sources.ts'
import { createPrefetchQueue, savesData } from './prefetch-queue.ts'
import { submitForm } from './submit.ts'

export type { PageComponent }

/** What the app renders: the document's state and the page's component, plus what to do once it is on screen. */
export interface View {
  state: DocumentState
  Page?: PageComponent | undefined
  /** Absolute URL the view shows. */
  href: string
  /** Set by client navigations: title to set and announce, where to scroll. The first view has none. */
  arrival?: { title: string; description?: string | undefined; scroll: Scroll }
}

/** Where a view opens: a saved position (back/forward), or a `#hash` to scroll to (`''`: the top). */
export type Scroll = readonly [number, number] | string

/** The router's state: a navigation is either settled on a view or loading the next one. */
export type Navigation = { status: 'idle'; view: View } | { status: 'loading'; view: View; target: string; id: number }

/** The internal error of a navigation overtaken by a newer one: it ends quietly, never shown or logged. */
export class RouteCancelled extends Error {
  override name = 'RouteCancelled'
  constructor() {
    super('Route Cancelled')
  }
}

class RouteTimeout extends Error {
  override name = 'RouteTimeout'
}

type Mode = 'push' | 'replace' | 'pop'

function dataUrlOf(deploymentId: string, target: URL): string {
  return pageDataUrl(deploymentId, target.pathname, target.search)
}

/** Redirects a navigation follows before it hands over to a full page load (which then shows the browser's own). */
const maxRedirects = 5

export interface Router {
  view(): View
  /** The navigation state: `loading` from a client navigation's start until its page is shown (or the browser takes
   * over), then `idle`; subscribers hear both, as preact-iso's onLoadStart and onLoadEnd. */
  navigation(): Navigation
  subscribe(listener: () => void): () => void
  /**
   * Whether a click on a link to `href` is the router's to handle: a page of this site, or a path of it that the site
   * policy may redirect (its page data says where to), not a hash on this page.
   */
  handles(href: string): boolean
  navigate(href: string, mode?: Mode): Promise<void>
  /**
   * Sends a form to its page's action (docs/forms.md) and shows the answer: the redirect's page, or the same page with
   * what the action said; forgets every page's data it kept, which the action may have changed.
   */
  submit(form: HTMLFormElement, submitter: HTMLElement | null): Promise<void>
  /** Queues the code of `href`'s page, and its data when the page is `static`. */
  prefetch(href: string): void
  /** Prefetches `href` once `element` comes within `prefetchMarginPx` of the viewport; returns the undo. */
  observe(element: Element, href: string): () => void
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RouteTimeout(`route not loaded within ${ms} ms`)), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** A page's code chunk; a page of the table always has one, so a missing one is a build fault, not a 404. */
function loadPageModule(page: PageRoute): Promise<PageModule> {
  const load = pageModule(page.id)
  return load ? load() : Promise.reject(new Error(`Courier: no code chunk for page ${page.id}`))
}

/**
 * The client router (docs/page-data-and-router.md "The client router"): loads a page's code chunk and data, then
 * renders it, within `routeLoadTimeoutMs`; any failure falls back to a full page load. Starts on the document's own
 * view.
 */
export function createRouter(pages: readonly PageRoute[], first: View): Router {
  const deploymentId = first.state.deploymentId
  const matchPage = createPageMatcher(pages)
  const cache = createDataCache()
  // Published for whoever must know that nothing is being prefetched (the browser tests' "not prefetched" checks).
  const root = document.documentElement
  root.dataset.prefetch = 'quiet'
  const queue = createPrefetchQueue(timings.prefetchConcurrency, function publishPrefetching(busy) {
    root.dataset.prefetch = busy ? 'busy' : 'quiet'
  })
  const entries = new HistoryEntries()
  const listeners = new Set<() => void>()
  let navigation: Navigation = { status: 'idle', view: first }
  let latest = 0

  if (first.state.type === 'page' && first.state.kind === 'static') {
    const firstPage = matchPage(new URL(first.href).pathname)?.page
    // The document's own head, for a later return to it from the cache.
    const description = document.querySelector<HTMLMetaElement>('meta[name="description"]')?.content
    cache.put(dataUrlOf(deploymentId, new URL(first.href)), firstPage ?? { kind: 'static' }, {
      props: first.state.data,
      head: description === undefined ? { title: document.title } : { title: document.title, description },
    })
  }

  function settle(next: Navigation): void {
    navigation = next
    listeners.forEach((listener) => listener())
  }

  function loadData(url: string, page: PageRoute): Promise<PageAnswer> {
    return cache.load(url, page, () => fetchPageData(url, deploymentId))
  }

  async function navigate(href: string, mode: Mode = 'push', redirects = 0): Promise<void> {
    const target = new URL(href, window.location.href)
    const shown = navigation.view.href
    if (target.origin !== window.location.origin) return hardNavigate(target.href, shown)
    const match = matchPage(target.pathname)
    // A path no page matches may still be one the site policy redirects: its page data says so (a 404 otherwise).
    if (!match && !mayBeRedirected(target.pathname)) return hardNavigate(target.href, shown)
    const id = ++latest
    settle({ status: 'loading', view: navigation.view, target: target.href, id })
    try {
      const dataUrl = dataUrlOf(deploymentId, target)
      const [module, data] = await withTimeout<[PageModule | undefined, PageAnswer]>(
        match
          ? Promise.all([loadPageModule(match.page), loadData(dataUrl, match.page)])
          : Promise.all([undefined, fetchPageData(dataUrl, deploymentId)]),
        timings.routeLoadTimeoutMs,
      )
      if (id !== latest) throw new RouteCancelled()
      if ('redirect' in data) {
        if (redirects >= maxRedirects) return hardNavigate(target.href, shown)
        return navigate(data.redirect.destination, mode === 'pop' ? 'replace' : mode, redirects + 1)
      }
      // Not found, or (after a deploy changed the pages) data for a page this router does not know.
      if ('notFound' in data || !match || !module) return hardNavigate(target.href, shown)
      // The server gives the head with the data: no page's head is code in the browser.
      const head = data.head ?? { title: document.title }
      let scroll: Scroll = target.hash
      if (mode === 'pop') {
        scroll = entries.arrive(window.history.state) ?? [0, 0]
      } else {
        entries.leave()
        entries.write(target.href, mode === 'replace' || target.href === window.location.href)
      }
      settle({
        status: 'idle',
        view: {
          state: {
            type: 'page',
            pageId: match.page.id,
            kind: match.page.kind,
            params: match.params,
            data: data.props,
            deploymentId,
          },
          Page: module.default,
          href: target.href,
          arrival: { title: head.title, description: head.description, scroll },
        },
      })
    } catch (error) {
      // Overtaken by a newer navigation: that one owns the screen now.
      if (error instanceof RouteCancelled || id !== latest) return
      settle({ status: 'idle', view: navigation.view })
      // A route that did not load in time is not an error of the page: the full load is the normal way there.
      if (!(error instanceof RouteTimeout)) console.error(error)
      hardNavigate(target.href, shown)
    }
  }

  async function submit(form: HTMLFormElement, submitter: HTMLElement | null): Promise<void> {
    const target = new URL(form.getAttribute('action') || window.location.href, window.location.href)
    const match = target.origin === window.location.origin ? matchPage(target.pathname) : undefined
    // A form to elsewhere, or to no page of this site: the browser sends it.
    if (!match) return form.submit()
    const id = ++latest
    settle({ status: 'loading', view: navigation.view, target: target.href, id })
    const [result, module] = await Promise.all([
      submitForm(form, submitter, dataUrlOf(deploymentId, target), deploymentId),
      loadPageModule(match.page).catch(() => undefined),
    ])
    cache.clear()
    if (id !== latest) return
    if ('redirect' in result) return navigate(result.redirect, 'push')
    settle({ status: 'idle', view: navigation.view })
    if ('unusable' in result || !module) return form.submit()
    const { props, actionData } = result.refused
    const { id: pageId, kind } = match.page
    const state = { type: 'page', pageId, kind, params: match.params, data: props, actionData, deploymentId } as const
    settle({ status: 'idle', view: { state, Page: module.default, href: target.href } })
  }

  function prefetch(href: string): void {
    if (savesData()) return
    const target = new URL(href, window.location.href)
    const match = target.origin === window.location.origin ? matchPage(target.pathname) : undefined
    if (!match) return
    const dataUrl = dataUrlOf(deploymentId, target)
    const page = match.page
    // Dynamic pages: code only, their data is fetched at navigation. Static data already fresh: code only.
    const wantsData = page.kind === 'static' && !cache.has(dataUrl)
    queue.push(wantsData ? dataUrl : `code:${page.id}`, () =>
      Promise.all([loadPageModule(page), wantsData ? loadData(dataUrl, page) : undefined]),
    )
  }

  const nearViewport = createNearViewport()

  window.addEventListener('popstate', function navigateHistory() {
    const target = new URL(window.location.href)
    const shown = new URL(navigation.view.href)
    // Only the hash changed: the browser already scrolled to it, the page stays.
    if (target.pathname === shown.pathname && target.search === shown.search && navigation.status === 'idle') return
    entries.leave()
    void navigate(target.href, 'pop')
  })

  return {
    view: () => navigation.view,
    navigation: () => navigation,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    handles(href) {
      const target = new URL(href, window.location.href)
      if (target.origin !== window.location.origin) return false
      if (!matchPage(target.pathname) && !mayBeRedirected(target.pathname)) return false
      const here = new URL(window.location.href)
      return !(target.hash && target.pathname === here.pathname && target.search === here.search)
    },
    navigate: (href, mode) => navigate(href, mode),
    submit,
    prefetch,
    observe: (element, href) => nearViewport(element, () => prefetch(href)),
  }
}
