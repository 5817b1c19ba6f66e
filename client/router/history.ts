/** What Courier keeps in each history entry: a key to find the entry's scroll position again. */
interface EntryState {
  courierKey: string
}

type ScrollPosition = readonly [number, number]

function newKey(): string {
  return Math.random().toString(36).slice(2, 10)
}

function keyOf(state: unknown): string | undefined {
  const key = (state as Partial<EntryState> | null)?.courierKey
  return typeof key === 'string' ? key : undefined
}

/**
 * History entries and their scroll positions. The router restores scroll itself (`scrollRestoration = 'manual'`):
 * the browser would restore it before the page it belongs to has rendered.
 */
export class HistoryEntries {
  private readonly positions = new Map<string, ScrollPosition>()
  private current: string

  constructor() {
    if ('scrollRestoration' in history) history.scrollRestoration = 'manual'
    this.current = keyOf(history.state) ?? newKey()
    history.replaceState({ ...(history.state as object | null), courierKey: this.current }, '')
  }

  /** Records where the page shown is scrolled, before it is left. */
  leave(): void {
    this.positions.set(this.current, [window.scrollX, window.scrollY])
  }

  /** A new entry (or the current one replaced) for `href`. */
  write(href: string, replace: boolean): void {
    this.current = newKey()
    const state: EntryState = { courierKey: this.current }
    if (replace) history.replaceState(state, '', href)
    else history.pushState(state, '', href)
  }

  /** Back/forward arrived at the entry with `state`: where it was scrolled, if known. */
  arrive(state: unknown): ScrollPosition | undefined {
    const key = keyOf(state)
    this.current = key ?? newKey()
    if (!key) history.replaceState({ ...(state as object | null), courierKey: this.current }, '')
    return key ? this.positions.get(key) : undefined
  }
}
