/**
 * A kept page's regeneration is a span of its own trace (`courier.page_regeneration`): on demand by path, with its
 * page, path, reason, outcome and the duration its log line says; a failed one with ERROR, its exception and the digest
 * of its log line; none when the rule for new traces does not sample it.
 */
import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { revalidation } from '../../config/content.ts'
import { build } from '../helpers/app.ts'
import { testGuidePath, testRoutes } from '../helpers/site-pages.ts'
import { guides, siteContent } from '../helpers/content.ts'
import { otlpReceiverFor, until } from '../helpers/otlp-receiver.ts'

// The batch processor reads its delay from the environment: spans leave every 50 ms, not every 5 s.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50'

const token = 'a-test-token-of-some-length-0123456789'
/** A guide of the tests' own content (test/helpers/content.ts). */
const guide = guides[0]!
const page = testGuidePath(guide.slug)

async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-regeneration-span-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

/** The app on a copy of the content, tracing to a receiver; `page` served once, so it is kept. */
async function keptPage(t: Test, env: Record<string, string> = {}) {
  const receiver = await otlpReceiverFor(t)
  const dir = await contentCopy(t)
  const built = await build(t, {
    ...testRoutes,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    REVALIDATE_TOKEN: token,
    CONTENT_DIR: dir,
    ...env,
  })
  t.equal((await built.app.inject(page)).statusCode, 200, 'the page is served and kept')
  const file = path.join(dir, 'guides', `${guide.slug}.md`)
  const revalidate = () =>
    built.app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization: `Bearer ${token}` },
      payload: { paths: [page] },
    })
  return { ...built, receiver, file, revalidate }
}

t.test(
  'a revalidation on demand: one root span with the page, path, reason, outcome and the duration measured',
  async (t) => {
    const { app, logs, receiver, file, revalidate } = await keptPage(t)
    await writeFile(file, `${await readFile(file, 'utf8')}\nA sentence written after the page was kept.\n`)
    t.equal((await revalidate()).statusCode, 200)
    t.match((await app.inject(page)).body, 'A sentence written after the page was kept.', 'regenerated')
    const span = await until('the regeneration span', () =>
      receiver.spans().find((entry) => entry.name === 'courier.page_regeneration'),
    )
    t.same(span.attributes, {
      'courier.page.id': 'test-guide',
      'courier.page.path': page,
      'courier.regeneration.reason': 'path',
      'courier.regeneration.outcome': 'regenerated',
      'courier.regeneration.loader_ran': true,
      'courier.deployment_id': app.deploymentId,
    })
    t.equal(span.parentSpanId, '', 'a trace of its own: no request waits for it')
    t.equal(span.kind, 1, 'internal')
    t.equal(span.status.code, 0, 'not an error')
    const line = logs().find((entry) => entry.msg === 'page regenerated')!
    const spanMs = Number(span.endNs - span.startNs) / 1e6
    // The log line rounds to 0.1 ms, the exporter to whole nanoseconds.
    t.ok(
      Math.abs(spanMs - Number(line.durationMs)) <= 0.1,
      `as long as the log line says (${spanMs} ms, logged ${String(line.durationMs)} ms)`,
    )
    t.ok(span.endNs <= BigInt(Date.now()) * 1_000_000n + 1_000_000n, 'ended by now')
    t.equal(
      receiver.spans().filter((entry) => entry.name === 'courier.page_regeneration').length,
      1,
      'one span for one regeneration',
    )
  },
)

t.test(
  'a regeneration that fails: ERROR, its exception and the digest of its log line; the kept page stays',
  async (t) => {
    const { app, logs, receiver, file, revalidate } = await keptPage(t)
    await writeFile(file, 'no front matter at all\n')
    t.equal((await revalidate()).statusCode, 200)
    t.equal((await app.inject(page)).statusCode, 200, 'the last good version is served')
    const span = await until('the regeneration span', () =>
      receiver.spans().find((entry) => entry.name === 'courier.page_regeneration'),
    )
    const line = logs().find((entry) => entry.msg === 'page regeneration failed')!
    t.match(span.attributes, {
      'courier.page.path': page,
      'courier.regeneration.outcome': 'failed',
      'courier.digest': line.digest,
    })
    t.equal(span.status.code, 2, 'status ERROR')
    t.ok(
      span.events.some(
        (event) =>
          event.name === 'exception' &&
          String(event.attributes['exception.message']).includes(`guides/${guide.slug}.md`),
      ),
      'the exception names the file',
    )
  },
)

t.test('not sampled by the rule for new traces: no regeneration span', async (t) => {
  // The SDK alone would sample this root (parent-based, no parent); the rule for new traces says no, as at the door.
  const { app, receiver, file, revalidate } = await keptPage(t, { OTEL_TRACES_SAMPLER: 'parentbased_always_off' })
  await writeFile(file, `${await readFile(file, 'utf8')}\nOne more sentence.\n`)
  t.equal((await revalidate()).statusCode, 200)
  t.match((await app.inject(page)).body, 'One more sentence.', 'regenerated')
  await app.close()
  t.same(
    receiver.spans().filter((entry) => entry.name === 'courier.page_regeneration'),
    [],
    'no span exported',
  )
})
