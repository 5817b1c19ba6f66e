/** Chromium through playwright-core: Debian's /usr/bin/chromium, one browser context per tab. */
import { chromium } from 'playwright-core'
import { chromiumArgs, chromiumPath, timeouts } from '../harness.ts'
import type { ConsoleEntry, Engine, PageFunction, Tab } from './types.ts'

export async function launchChromium(): Promise<Engine> {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: chromiumArgs,
    timeout: timeouts.launchMs,
  })
  return {
    name: 'chromium',
    version: `Chromium ${browser.version()}`,
    async newTab(): Promise<Tab> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      context.setDefaultTimeout(timeouts.actionMs)
      context.setDefaultNavigationTimeout(timeouts.navigationMs)
      const page = await context.newPage()
      const messages: ConsoleEntry[] = []
      const errors: string[] = []
      page.on('console', (message) => messages.push({ type: message.type(), text: message.text() }))
      page.on('pageerror', (error) => errors.push(error.stack ?? `${error.name}: ${error.message}`))
      page.on('crash', () => errors.push('the page crashed'))
      return {
        async goto(url) {
          await page.goto(url, { waitUntil: 'load' })
        },
        evaluate<A, R>(fn: PageFunction<A, R>, arg: A): Promise<R> {
          return page.evaluate(fn as unknown as (arg: unknown) => Promise<R>, arg as unknown)
        },
        async click(selector) {
          await page.click(selector)
        },
        async type(selector, text) {
          await page.locator(selector).first().pressSequentially(text)
        },
        async back() {
          await page.goBack()
        },
        async forward() {
          await page.goForward()
        },
        async addInitScript(source) {
          await context.addInitScript(source)
        },
        console: async () => [...messages],
        pageErrors: async () => [...errors],
        close: () => context.close(),
      }
    },
    close: () => browser.close(),
  }
}
