/**
 * Bytes on the wire of a first visit, as Chromium receives them: the document and every script, stylesheet and font
 * the page loads until the network is quiet (hydration and the router's chunk included), each counted by the
 * encoded length Chromium reports (headers and compressed body). What a person on a phone pays for the page, which
 * a load generator that sends no Accept-Encoding never sees.
 */
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'

const chromiumPath = '/usr/bin/chromium'

export interface WireBytes {
  page: string
  /** Encoded bytes by resource type (document, script, stylesheet, font). */
  byType: Record<string, number>
  total: number
  /** Each counted response: type, path, content-encoding and encoded bytes. */
  responses: Array<{ type: string; path: string; encoding: string | null; bytes: number }>
}

const counted = new Set(['Document', 'Script', 'Stylesheet', 'Font'])

/** A fresh browser and cache: the visit of someone who has never been on the site. */
export async function measureFirstVisit(origin: string, page = '/'): Promise<WireBytes | null> {
  if (!existsSync(chromiumPath)) return null
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
    ],
  })
  try {
    const context = await browser.newContext()
    const tab = await context.newPage()
    const cdp = await context.newCDPSession(tab)
    await cdp.send('Network.enable')
    const requests = new Map<string, { type: string; path: string; encoding: string | null }>()
    const responses: WireBytes['responses'] = []
    cdp.on('Network.responseReceived', (event) => {
      if (!counted.has(event.type)) return
      const headers = Object.fromEntries(
        Object.entries(event.response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
      )
      requests.set(event.requestId, {
        type: event.type.toLowerCase(),
        path: new URL(event.response.url).pathname,
        encoding: headers['content-encoding'] ?? null,
      })
    })
    cdp.on('Network.loadingFinished', (event) => {
      const request = requests.get(event.requestId)
      if (request) responses.push({ ...request, bytes: event.encodedDataLength })
    })
    await tab.goto(origin + page, { waitUntil: 'networkidle' })
    const byType: Record<string, number> = {}
    for (const response of responses) byType[response.type] = (byType[response.type] ?? 0) + response.bytes
    return { page, byType, total: responses.reduce((sum, response) => sum + response.bytes, 0), responses }
  } finally {
    await browser.close()
  }
}
