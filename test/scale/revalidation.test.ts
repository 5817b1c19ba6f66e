/**
 * Revalidation across instances against a real redis-server on a loopback port: three Courier applications (each
 * the whole app, as buildApp makes it, with its own Redis connections) serve one CONTENT_DIR. A Markdown file is
 * edited, one instance takes POST /api/revalidate, and every instance serves the new document and page data; with
 * Redis stopped a call still answers 200 for its own instance, with a warn line, and nothing answers 5xx. Run by
 * `npm run test:scale` (test/scale/*.test.ts).
 */
import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { revalidation } from '../../config/content.ts'
import { build, type Built } from '../helpers/app.ts'
import { siteContent } from '../helpers/content.ts'
import { startRedis } from './processes.ts'

const token = 'scale-test-token-0123456789'
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-fleet-content-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

t.test('a revalidation reaches every instance through Redis: each serves the new page and data', async (t) => {
  const redis = await startRedis(t)
  const dir = await contentCopy(t)
  const fleet: Built[] = []
  for (let index = 0; index < 3; index++) fleet.push(await build(t, { REDIS_URL: redis.url, REVALIDATE_TOKEN: token, CONTENT_DIR: dir }))
  await waitFor('every instance connected to redis', () =>
    fleet.every(({ logs }) => logs().filter((line) => /redis connected/.test(line.msg)).length >= 1),
  )
  const guide = '/guides/page-data'
  const dataPath = (app: Built['app']) => `/_next/data/${app.deploymentId}${guide}.json`
  for (const { app } of fleet) {
    t.match((await app.inject(guide)).body, 'does not download a new document')
    await app.inject(dataPath(app))
  }
  const etagBefore = (await fleet[1]!.app.inject(dataPath(fleet[1]!.app))).headers.etag

  const file = path.join(dir, 'guides', 'page-data.md')
  await writeFile(file, (await readFile(file, 'utf8')).replace('does not download a new document', 'never downloads a whole new document'))
  const calledAt = performance.now()
  const response = await fleet[0]!.app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}` },
    payload: { paths: [guide] },
  })
  t.equal(response.statusCode, 200)
  t.equal(response.json().instances, 3, 'every instance was listening')
  const answeredAt = performance.now()
  const newOn = async ({ app }: Built) => {
    const [page, data] = await Promise.all([app.inject(guide), app.inject(dataPath(app))])
    return page.body.includes('never downloads a whole new document') && data.body.includes('never downloads a whole new document')
  }
  await waitFor('every instance serving the new version', async () => (await Promise.all(fleet.map(newOn))).every(Boolean), 10_000).catch((error: unknown) => {
    t.comment(JSON.stringify(fleet.map(({ logs }) => logs().filter((line) => /revalidat|regenerat/.test(line.msg)).map((line) => line.msg))))
    throw error
  })
  // Measured and reported, bounded above by the wait (10 s): the 1 s goal holds on an idle machine; a loaded shared
  // one (three full apps rendering in one process) says nothing about it.
  const everyNewMs = performance.now() - answeredAt
  t.pass(`every instance served the new document and data ${everyNewMs.toFixed(1)} ms after the 200`)
  t.comment(`call answered in ${(answeredAt - calledAt).toFixed(1)} ms; every instance new ${everyNewMs.toFixed(1)} ms after it`)
  t.not((await fleet[1]!.app.inject(dataPath(fleet[1]!.app))).headers.etag, etagBefore, 'a new ETag on another instance')
  const runs = fleet.map(({ logs }) => logs().filter((line) => line.msg === 'page regenerated' && line.path === guide).length)
  t.same(runs, [1, 1, 1], 'one regeneration on each instance (the page is not shared between instances yet)')

  await redis.stop()
  await waitFor('redis loss noticed', () => fleet[0]!.logs().some((line) => /redis connection lost/.test(line.msg)))
  const alone = await fleet[0]!.app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}` },
    payload: { tags: ['guides'] },
  })
  t.equal(alone.statusCode, 200, 'Redis gone: the call still succeeds')
  t.equal(alone.json().instances, 1, 'for this instance only')
  t.ok(fleet[0]!.logs().some((line) => line.level === 40 && /revalidation applied to this instance only/.test(line.msg)), 'with a warn line')
  for (const { app } of fleet) t.equal((await app.inject(guide)).statusCode, 200, 'no 5xx')
})
