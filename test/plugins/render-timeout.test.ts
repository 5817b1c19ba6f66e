import t from 'tap'
import { lateErrorElementId } from '../../src/common/error-messages.ts'
import { build } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { rawGet } from '../helpers/raw.ts'

t.test(
  'a render whose data never arrives: aborted at the render time-out, error screen after the shell, socket closed',
  async (t) => {
    const renderTimeoutMs = 300
    const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' }, { limits: { renderTimeoutMs } })
    const origin = await listen(app)

    const {
      raw,
      firstByteMs: firstChunkAtMs,
      ms: closedAtMs,
    } = await rawGet(origin, '/__test/slow?delay=never', [], { timeoutMs: 15_000 })
    t.match(raw, /^HTTP\/1\.1 200 OK\r\n/, 'the status sent with the shell stays')
    t.match(raw, /\r\nconnection: close\r\n/i)
    t.match(raw, /\r\ntransfer-encoding: chunked\r\n/i, 'streamed')
    const fallback = raw.indexOf('id="slow-fallback"')
    const errorScreen = raw.indexOf(`id="${lateErrorElementId}"`)
    t.ok(fallback > 0, 'the shell with the fallback was flushed')
    t.ok(errorScreen > fallback, 'the error screen follows what was flushed')
    t.notMatch(raw, 'Resolved after')
    t.match(raw, /<\/html>\s*\r\n0\r\n\r\n$/, 'the document and the chunked body are complete')
    t.ok(closedAtMs >= renderTimeoutMs, `the socket closed once the render was aborted (${Math.round(closedAtMs)} ms)`)
    t.ok(firstChunkAtMs < closedAtMs)

    const timedOut = logs().filter((line) => line.msg === 'render timed out')
    t.equal(timedOut.length, 1, 'the time-out is logged once')
    t.equal(timedOut[0]?.level, 40, 'as a warning')
    const digest = timedOut[0]?.digest as string
    t.match(raw, `data-digest="${digest}"`, 'the error screen names the digest of the log line')
    t.same(
      logs().filter((line) => line.level >= 50),
      [],
      'nothing logged at error level',
    )
  },
)
