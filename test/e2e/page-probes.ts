/**
 * Functions the suites run inside the page (handed to an engine's evaluate, which sends their source): each is
 * self-contained, with no import or closure. A mark on the window survives client navigations only, so a test can
 * tell a client navigation from a full page load; the heading log records every `<h1>` the page shows, in order.
 */
type ProbedWindow = Window & { courierMarker?: string; courierHeadings?: string[]; __courierClockOffset?: number }

export function markWindow(): void {
  ;(window as ProbedWindow).courierMarker = 'still here'
}

/** The mark, or null after a full page load. */
export function readMark(): string | null {
  return (window as ProbedWindow).courierMarker ?? null
}

/** From now on, each heading `main` shows is appended to `window.courierHeadings` (read it with evaluate). */
export function recordHeadings(): void {
  const seen: string[] = []
  ;(window as ProbedWindow).courierHeadings = seen
  new MutationObserver(() => {
    const text = document.querySelector('main h1')?.textContent?.trim()
    if (text && seen[seen.length - 1] !== text) seen.push(text)
  }).observe(document.getElementById('main')!, { childList: true, subtree: true, characterData: true })
}

/**
 * A clock of the suite's own, for drivers without one (an init script's source): `Date.now()` holds still at the
 * document's start and moves only when the test moves it, `window.__courierClockOffset` ms (the router's data cache
 * times its entries with `Date.now()`). Set before the page's scripts, so every reading is the test's time: the ages
 * the router sees are the ones the test gave, however long a loaded machine takes between two steps.
 */
export const heldClock = `(() => {
  const startedAt = Date.now()
  window.__courierClockOffset = 0
  Date.now = () => startedAt + window.__courierClockOffset
})()`

/** Moves the held clock `ms` ahead. */
export function advanceClockBy(ms: number): void {
  ;(window as ProbedWindow).__courierClockOffset = ((window as ProbedWindow).__courierClockOffset ?? 0) + ms
}
