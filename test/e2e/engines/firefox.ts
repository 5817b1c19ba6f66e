/**
 * Firefox through puppeteer-core over WebDriver BiDi: Debian's firefox-esr, nothing downloaded, one browser context
 * per tab.
 */
import puppeteer, { type Page } from 'puppeteer-core'
import { timeouts } from '../harness.ts'
import { parseRecording, readRecordingSource, recorderSource } from './page-recorder.ts'
import type { ConsoleEntry, Engine, PageFunction, Tab } from './types.ts'

export const firefoxPath = '/usr/bin/firefox-esr'

export async function launchFirefox(): Promise<Engine> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    timeout: timeouts.launchMs,
    protocolTimeout: timeouts.launchMs,
  })
  const version = await browser.version()
  return {
    name: 'firefox',
    version,
    async newTab(): Promise<Tab> {
      const context = await browser.createBrowserContext()
      const page: Page = await context.newPage()
      page.setDefaultTimeout(timeouts.actionMs)
      page.setDefaultNavigationTimeout(timeouts.navigationMs)
      await page.setViewport({ width: 1280, height: 800 })
      const messages: ConsoleEntry[] = []
      const errors: string[] = []
      // Every message the engine reports; those that are the page's own console calls come from the recorder.
      page.on('console', (message) => {
        const type = message.type()
        messages.push({ type: type === 'warn' ? 'warning' : type, text: message.text() })
      })
      await page.evaluateOnNewDocument(recorderSource)
      page.on('pageerror', (error) => {
        errors.push(error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error))
      })
      return {
        async goto(url) {
          await page.goto(url, { waitUntil: 'load' })
        },
        evaluate<A, R>(fn: PageFunction<A, R>, arg: A): Promise<R> {
          return page.evaluate(fn as unknown as (arg: unknown) => Promise<R>, arg as unknown) as Promise<R>
        },
        async click(selector) {
          await page.click(selector)
        },
        async type(selector, text) {
          await page.type(selector, text)
        },
        async back() {
          await page.goBack()
        },
        async forward() {
          await page.goForward()
        },
        async addInitScript(source) {
          await page.evaluateOnNewDocument(source)
        },
        async console() {
          let text: unknown
          let why: string | undefined
          try {
            text = await page.evaluate(readRecordingSource)
          } catch (error) {
            why = error instanceof Error ? error.message : String(error)
          }
          const own = parseRecording(text, why)
            .filter((entry) => entry.kind === 'console')
            .map((entry) => ({ type: entry.type ?? 'log', text: entry.text }))
          // The engine's own messages: what it reported beyond the page's calls (and beyond `JSHandle@` spellings).
          const unmatched = [...own]
          const engineOwn = messages.filter((message) => {
            if (/JSHandle@/.test(message.text)) return false
            const index = unmatched.findIndex((entry) => entry.type === message.type && entry.text === message.text)
            if (index === -1) return true
            unmatched.splice(index, 1)
            return false
          })
          return [...own, ...engineOwn]
        },
        pageErrors: async () => [...errors],
        close: () => context.close(),
      }
    },
    close: () => browser.close(),
  }
}
