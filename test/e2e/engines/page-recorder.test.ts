/**
 * The Firefox and WebKit drivers' console recorder (page-recorder.ts), run in a bare context: it records, and a
 * recording that cannot be read or could not keep a message fails the reading instead of passing as "no output".
 */
import t from 'tap'
import { runInNewContext } from 'node:vm'
import { parseRecording, readRecordingSource, recorderSource } from './page-recorder.ts'

/** A document's globals as far as the recorder uses them; `refuse` makes sessionStorage refuse values longer than it. */
function page(refuse = Number.POSITIVE_INFINITY) {
  const stored = new Map<string, string>()
  const sessionStorage = {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => {
      if (value.length > refuse) throw new Error('QuotaExceededError')
      stored.set(key, value)
    },
  }
  const noop = () => {}
  const context = {
    sessionStorage,
    console: { error: noop, warn: noop, info: noop, log: noop, debug: noop },
    addEventListener: noop,
    JSON,
    String,
  }
  return {
    run: (source: string) => runInNewContext(source, context) as unknown,
    read: () => runInNewContext(readRecordingSource, context) as unknown,
  }
}

t.test('a page without the recorder reads as an error, not as no output', async (t) => {
  t.throws(() => parseRecording(page().read()), /could not be read: the recording is missing/)
  t.throws(() => parseRecording(undefined, 'the page is gone'), /could not be read: the page is gone/)
  t.throws(() => parseRecording('{"not":"a list"}'), /holds no list/)
  t.throws(() => parseRecording('[unclosed'), /holds no JSON/)
})

t.test('a page with the recorder: empty from the start, then every console call', async (t) => {
  const tab = page()
  tab.run(recorderSource)
  t.same(parseRecording(tab.read()), [], 'installed: an empty recording, not a missing one')
  tab.run("console.error('broken', 42)")
  tab.run("console.warn('careful')")
  t.same(parseRecording(tab.read()), [
    { kind: 'console', type: 'error', text: 'broken 42' },
    { kind: 'console', type: 'warning', text: 'careful' },
  ])
})

t.test('a message the recorder could not keep fails the reading', async (t) => {
  const tab = page(40)
  tab.run(recorderSource)
  tab.run(`console.error(${JSON.stringify('x'.repeat(100))})`)
  t.throws(() => parseRecording(tab.read()), /could not keep a message/)
})
