/**
 * The suite's driver layer: what a journey may ask of a browser, the same in every engine. Each engine implements it
 * over its own maintained client (playwright-core, puppeteer-core, selenium-webdriver); a journey is written once
 * against this and runs in all three. What no driver can do alike (recording requests, answering them in the
 * browser's place) is done by the loopback proxy (proxy.ts), the same for every engine.
 */

export type EngineName = 'chromium' | 'firefox' | 'webkit'

export const engineNames: readonly EngineName[] = Object.freeze(['chromium', 'firefox', 'webkit'])

export interface ConsoleEntry {
  /** `error`, `warning`, `log`, ... (normalised: Firefox's and WebKit's `warn` is `warning`). */
  type: string
  text: string
}

/** A function run in the page: it must be self-contained (it is sent as source), its argument JSON-serialisable. */
export type PageFunction<A, R> = (arg: A) => R | Promise<R>

export interface Tab {
  /** Loads `url` up to the `load` event (a full navigation). */
  goto(url: string): Promise<void>
  /** Runs `fn(arg)` in the page and returns its (awaited, JSON-serialisable) result. */
  evaluate<A, R>(fn: PageFunction<A, R>, arg: A): Promise<R>
  /** A real click (pointer events, as the engine's driver does it) on the first element matching `selector`. */
  click(selector: string): Promise<void>
  /** Types `text` into the first element matching `selector`, key by key, as the engine's driver does it. */
  type(selector: string, text: string): Promise<void>
  back(): Promise<void>
  forward(): Promise<void>
  /**
   * Source run at the start of every later document of this tab, before the page's own scripts (through the
   * driver's init scripts where it has them, else the proxy puts it in the document with the document's nonce).
   */
  addInitScript(source: string): Promise<void>
  /** The console messages so far, of every document of the tab. */
  console(): Promise<ConsoleEntry[]>
  /** The page's uncaught errors and unhandled rejections so far, of every document of the tab. */
  pageErrors(): Promise<string[]>
  close(): Promise<void>
}

export interface Engine {
  name: EngineName
  /** The engine's own version string, for the report. */
  version: string
  /** A fresh tab in a fresh profile (no cache, cookies or storage of an earlier tab). */
  newTab(): Promise<Tab>
  close(): Promise<void>
}

export interface EngineLaunchOptions {
  /** Where `addInitScript` falls back to when the driver has none. */
  injectIntoDocuments(source: string): void
}
