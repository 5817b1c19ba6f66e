/**
 * A recorder of the page's own console calls and uncaught errors, run as the first script of every document, for
 * drivers that do not report them fully (classic WebDriver reports none; puppeteer over BiDi spells an Error
 * argument `JSHandle@error`). It keeps what it saw in sessionStorage, so a full page load keeps what came before it.
 * It sees what the page's scripts say, not what the engine says itself (a failed resource load, a CSP refusal).
 */

/** sessionStorage key of the page-side recorder. */
export const recordKey = '__courierE2eConsole'

/** Runs first in every document (see above): console calls and uncaught errors, kept across full page loads. */
export const recorderSource = `(() => {
  const key = ${JSON.stringify(recordKey)}
  // An empty recording from the start: a page whose recorder never ran reads as null, not as "no output".
  try {
    if (sessionStorage.getItem(key) === null) sessionStorage.setItem(key, '[]')
  } catch {}
  const push = (entry) => {
    try {
      const list = JSON.parse(sessionStorage.getItem(key) || '[]')
      list.push(entry)
      sessionStorage.setItem(key, JSON.stringify(list))
    } catch {
      // A message that could not be kept: the recording is marked, and reading it fails.
      try { sessionStorage.setItem(key, 'unrecorded') } catch {}
    }
  }
  const show = (value) => value instanceof Error ? (value.stack && value.stack.includes(value.message) ? value.stack : value.name + ': ' + value.message + '\\n' + (value.stack || ''))
    : typeof value === 'string' ? value : (() => { try { return JSON.stringify(value) } catch { return String(value) } })()
  for (const type of ['error', 'warn', 'info', 'log', 'debug']) {
    const original = console[type]
    console[type] = function (...args) {
      push({ kind: 'console', type: type === 'warn' ? 'warning' : type, text: args.map(show).join(' ') })
      return original.apply(this, args)
    }
  }
  addEventListener('error', (event) => push({ kind: 'error', text: event.error ? show(event.error) : String(event.message) }))
  addEventListener('unhandledrejection', (event) => push({ kind: 'error', text: show(event.reason) }))
})()`

export interface Recorded {
  kind: 'console' | 'error'
  type?: string
  text: string
}

/** An expression that reads the recording (a JSON string, or null). */
export const readRecordingSource = `sessionStorage.getItem(${JSON.stringify(recordKey)})`

/**
 * The recording as read from the page. Anything but a JSON list (the recorder never ran in this document, a message
 * could not be kept, the page could not be read: `why`) throws: a recorder that cannot be read must fail a "no console
 * error" check, never pass it as "no output".
 */
export function parseRecording(text: unknown, why = 'the recording is missing'): Recorded[] {
  if (typeof text !== 'string') throw new Error(`the page's console recorder could not be read: ${why}`)
  if (text === 'unrecorded')
    throw new Error("the page's console recorder could not keep a message (sessionStorage refused it)")
  let list: unknown
  try {
    list = JSON.parse(text)
  } catch {
    throw new Error(`the page's console recorder holds no JSON: ${text.slice(0, 80)}`)
  }
  if (!Array.isArray(list)) throw new Error(`the page's console recorder holds no list: ${text.slice(0, 80)}`)
  return list as Recorded[]
}
