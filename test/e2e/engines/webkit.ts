/**
 * WebKit: WebKitGTK's MiniBrowser driven by Debian's WebKitWebDriver (W3C WebDriver, classic) through
 * selenium-webdriver, on a virtual display (xvfb-run). One WebDriver session, i.e. one fresh browser, per tab.
 *
 * Classic WebDriver has no console events and no init scripts: the tab's init scripts, and a recorder of the page's
 * console calls and uncaught errors (kept in sessionStorage, so a full page load keeps what came before it), are
 * put into each document by the suite's proxy. The engine's own messages (a failed resource load, a CSP refusal)
 * are not seen there; docs/browsers.md "What each driver cannot do, and what the suite does instead" lists what that leaves out.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { By, Capabilities, WebDriver } from 'selenium-webdriver'
import { onFreePort } from '../../helpers/free-port.ts'
import { bounded, timeouts, TimeoutError } from '../harness.ts'
import { parseRecording, readRecordingSource, recorderSource, type Recorded } from './page-recorder.ts'
import type { Engine, EngineLaunchOptions, PageFunction, Tab } from './types.ts'

// selenium-webdriver has no `exports` map: its http module is loaded the CommonJS way, with its own types.
const { Executor, HttpClient } = createRequire(import.meta.url)('selenium-webdriver/http') as typeof import(
  'selenium-webdriver/http',
  {
    with: { 'resolution-mode': 'require' },
  }
)

export const webkitDriverPath = '/usr/bin/WebKitWebDriver'
export const miniBrowserPath = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'
export const xvfbRunPath = '/usr/bin/xvfb-run'

async function waitForDriver(
  url: string,
  child: ChildProcess,
  closed: Promise<void>,
  output: () => string,
): Promise<void> {
  const end = Date.now() + timeouts.launchMs
  while (Date.now() < end) {
    if (child.exitCode !== null) {
      // Its output read to the end (a port taken in between: `Unable to listen for HTTP server`), or 2 s at most.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000))])
      throw new Error(`WebKitWebDriver exited (${child.exitCode}): ${output()}`)
    }
    try {
      const response = await fetch(`${url}/status`)
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`WebKitWebDriver did not answer within ${timeouts.launchMs} ms: ${output()}`)
}

interface Driver {
  url: string
  stop: () => void
}

/** The driver on a free port, and on another when that one was taken in between. */
function startDriver(): Promise<Driver> {
  return onFreePort(startDriverOn)
}

async function startDriverOn(port: number): Promise<Driver> {
  // Its own process group: stopping ends xvfb-run, Xvfb, the driver and the browsers it started, and nothing else.
  const child = spawn(xvfbRunPath, ['-a', '-s', '-screen 0 1600x1200x24', webkitDriverPath, `--port=${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)))
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)))
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = () => {
    try {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM')
    } catch {
      // Gone already.
    }
  }
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForDriver(url, child, closed, () => output)
  } catch (error) {
    stop()
    throw error
  }
  return { url, stop }
}

export async function launchWebKit(options: EngineLaunchOptions): Promise<Engine> {
  let driverProcess = await startDriver()
  const capabilities = new Capabilities({
    // No browserName: the driver's default ("epiphany") would not match MiniBrowser.
    'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] },
  })

  /**
   * A new session is a new MiniBrowser. Rarely, the driver never answers the request for one; no page of the site is
   * loaded yet. Then the driver and its display are replaced, once, and the replacement is said on stderr; a second
   * hang fails the test.
   */
  async function openSession(): Promise<WebDriver> {
    for (let attempt = 1; ; attempt += 1) {
      const driver = WebDriver.createSession(new Executor(new HttpClient(driverProcess.url)), capabilities)
      try {
        // On a loaded machine a MiniBrowser's start can take a good part of a minute.
        await bounded(driver.getSession(), 2 * timeouts.launchMs, 'opening a WebKit session')
        return driver
      } catch (error) {
        if (attempt > 1 || !(error instanceof TimeoutError)) throw error
        process.stderr.write(`webkit: ${error.message}; starting a new WebKitWebDriver and trying once more\n`)
        driverProcess.stop()
        driverProcess = await startDriver()
      }
    }
  }
  let version = 'WebKitGTK'

  return {
    name: 'webkit',
    get version() {
      return version
    },
    async newTab(): Promise<Tab> {
      const driver = await openSession()
      version = `WebKitGTK ${(await driver.getCapabilities()).getBrowserVersion()}`
      await driver.manage().setTimeouts({ pageLoad: timeouts.navigationMs, script: timeouts.navigationMs })
      await driver.manage().window().setRect({ width: 1280, height: 800 })
      options.injectIntoDocuments(recorderSource)

      async function recorded(): Promise<Recorded[]> {
        return parseRecording(await driver.executeScript(`return ${readRecordingSource}`))
      }

      return {
        async goto(target) {
          await driver.get(target)
        },
        async evaluate<A, R>(fn: PageFunction<A, R>, arg: A): Promise<R> {
          const result = (await driver.executeAsyncScript(
            `const done = arguments[arguments.length - 1]
             Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
               .then((value) => done({ value: value === undefined ? null : value, undefined: value === undefined }),
                     (error) => done({ error: String(error && error.stack || error) }))`,
            arg === undefined ? null : arg,
          )) as { value?: R; undefined?: boolean; error?: string }
          if (result.error) throw new Error(`in the page: ${result.error}`)
          return (result.undefined ? undefined : result.value) as R
        },
        async click(selector) {
          await driver.findElement(By.css(selector)).click()
        },
        async type(selector, text) {
          await driver.findElement(By.css(selector)).sendKeys(text)
        },
        async back() {
          await driver.navigate().back()
        },
        async forward() {
          await driver.navigate().forward()
        },
        async addInitScript(source) {
          options.injectIntoDocuments(source)
        },
        async console() {
          return (await recorded())
            .filter((entry) => entry.kind === 'console')
            .map((entry) => ({ type: entry.type ?? 'log', text: entry.text }))
        },
        async pageErrors() {
          return (await recorded()).filter((entry) => entry.kind === 'error').map((entry) => entry.text)
        },
        // The driver takes no new session until this one has ended: wait for it to end.
        close: () => bounded(driver.quit(), 3 * timeouts.closeMs, 'closing the WebKit session'),
      }
    },
    async close() {
      driverProcess.stop()
    },
  }
}
