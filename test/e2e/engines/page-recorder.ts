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
  const push = (entry) => {
    try {
      const list = JSON.parse(sessionStorage.getItem(key) || '[]')
      list.push(entry)
      sessionStorage.setItem(key, JSON.stringify(list))
    } catch {}
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
