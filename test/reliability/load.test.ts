/**
 * Load and soak (docs/reliability.md): autocannon -c 100 -p 10 for 60 s against the real server process over the whole mix
 * (test/reliability/targets.ts), every response checked, and the server's access lines counted against the
 * client's requests. RELIABILITY_LOAD_SECONDS shortens the run for a quick local try; CI runs the full minute.
 */
import t from 'tap'
import { runLoad } from './load.ts'
import { startServer } from './server-process.ts'
import { buildMix, readMixSources } from './targets.ts'

const seconds = Number(process.env.RELIABILITY_LOAD_SECONDS ?? 60)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

t.test(`${seconds} s of autocannon -c 100 -p 10 over the mix: every body right, nothing lost`, async (t) => {
  const server = await startServer(t, { keepAccessLines: false, env: { COURIER_TEST_ROUTES: 'true' } })
  const mix = await buildMix(await readMixSources(server.origin))
  // The access lines of the requests so far travel through a pipe: count from when they have all arrived.
  let linesBefore = server.accessCounts().total
  for (let wait = 0; wait < 20; wait++) {
    await sleep(100)
    const now = server.accessCounts().total
    if (now === linesBefore && wait >= 3) break
    linesBefore = now
  }

  const report = await runLoad(server.origin, mix, {
    seconds,
    connections: 100,
    pipelining: 10,
    // A lost or hung response, not a slow one: with 1000 requests in flight on a shared 2-core machine the tail
    // reaches seconds (latency is `npm run bench`'s subject, not this test's).
    timeoutSeconds: 60,
    drainSeconds: 90,
  })

  // The access lines travel through a pipe that this busy process reads behind the load (tens of thousands of lines
  // on a quiet machine): wait until they have all arrived, or until none has arrived for 3 s (bounded to 60 s).
  let lastTotal = server.accessCounts().total
  let lastProgress = Date.now()
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const total = server.accessCounts().total
    if (total - linesBefore >= report.responses) break
    if (total !== lastTotal) [lastTotal, lastProgress] = [total, Date.now()]
    else if (Date.now() - lastProgress > 3_000) break
    await sleep(50)
  }
  const access = server.accessCounts()
  const served = access.total - linesBefore

  t.comment(
    `load: ${report.responses} requests in ${report.durationSeconds} s (${report.requestsPerSecond} req/s, ` +
      `p99 ${report.latencyP99Ms} ms, max ${report.latencyMaxMs} ms), errors ${report.errors}, timeouts ${report.timeouts}, ` +
      `status codes ${JSON.stringify(report.statusCodes)}, server access lines ${served}`,
  )
  t.ok(report.responses > 0, 'the server answered')
  t.equal(report.errors, 0, 'no errors')
  t.equal(report.timeouts, 0, 'no time-outs')
  t.equal(report.sent, report.responses, 'every request sent got its response')
  t.equal(served, report.responses, "the server's access-log lines equal the client's requests")
  t.equal(access.aborted, 0, 'no response was abandoned')
  for (const target of mix) {
    const tally = report.perTarget[target.name]!
    t.ok(tally.responses > 0, `${target.name}: served (${tally.responses})`)
    t.equal(tally.wrongStatus, 0, `${target.name}: always ${target.status}`, { samples: tally.samples })
    t.equal(tally.mismatches, 0, `${target.name}: every body right`, { samples: tally.samples })
  }
  const expectedNon2xx = mix.filter((target) => target.status >= 300).length
  t.equal(
    Object.keys(report.statusCodes).filter((code) => Number(code) >= 300).length,
    expectedNon2xx > 0 ? 1 : 0,
    'non-2xx only where expected (the 404 targets)',
  )
  const failures = server.logs().filter((line) => line.level >= 50)
  t.same(failures, [], 'no error lines in the server log')
  t.equal(server.otherOutput(), '', 'nothing but JSON log lines from the server')

  const exit = await server.stop()
  t.equal(exit.code, 0, 'the server closes cleanly after the run')
})
