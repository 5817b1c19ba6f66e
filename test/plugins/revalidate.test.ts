import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { revalidation } from '../../config/content.ts'
import { build } from '../helpers/app.ts'
import { siteContent } from '../helpers/content.ts'
import { ContentSource } from '../../src/content/content-source.ts'
import {
  pageInstances,
  siteWithUnfilteredPage,
  testGuidePath,
  testGuidesPath,
  testRoutes,
} from '../helpers/site-pages.ts'

const token = 'a-test-token-of-some-length-0123456789'
const authorization = `Bearer ${token}`

async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-revalidate-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

t.test('without REVALIDATE_TOKEN the route does not exist', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization },
    payload: { paths: ['/'] },
  })
  t.equal(response.statusCode, 404)
})

t.test('a missing or wrong token is 401; a bad body 400 with the reason; other methods 405', async (t) => {
  const { app } = await build(t, { REVALIDATE_TOKEN: token })
  const call = (headers: Record<string, string>, payload: unknown) =>
    app.inject({ method: 'POST', url: revalidation.path, headers, payload: payload as object })
  const headerSets: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer wrong-token-of-some-length' },
    { authorization: token },
    { authorization: `Basic ${token}` },
  ]
  for (const headers of headerSets) {
    const response = await call(headers, { paths: ['/'] })
    t.equal(response.statusCode, 401, JSON.stringify(headers))
    t.equal(response.json().code, 'COURIER_ERR_REVALIDATE_UNAUTHORIZED')
  }
  const bad: Array<[unknown, RegExp]> = [
    [{}, /must match a schema in anyOf|must have required property/],
    [{ paths: [] }, /anyOf|fewer than 1/],
    [{ paths: ['guides/x'] }, /must match pattern "\^\/"/],
    [{ tags: [{}] }, /must be string/],
    [{ tags: ['two words'] }, /must match pattern/],
    [{ paths: Array.from({ length: revalidation.maxItems + 1 }, () => '/') }, /more than 100 items/],
  ]
  for (const [payload, reason] of bad) {
    const response = await call({ authorization }, payload)
    t.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.match(response.json().message, reason)
  }
  t.equal((await app.inject({ method: 'GET', url: revalidation.path })).statusCode, 405)
  t.equal((await call({ authorization }, { paths: ['/'] })).statusCode, 200)
})

t.test('edit a guide, revalidate its path: the new document and data, a new ETag, one loader run', async (t) => {
  const dir = await contentCopy(t)
  const { app, logs } = await build(t, { ...testRoutes, REVALIDATE_TOKEN: token, CONTENT_DIR: dir })
  const id = app.deploymentId
  const pagePath = testGuidePath('tide-tables')
  const dataUrl = `/_next/data/${id}${pagePath}.json`
  const before = await app.inject(pagePath)
  const beforeData = await app.inject(dataUrl)
  t.match(before.body, 'Tide tables is one of the skills a fixture crew practises.')
  t.equal(before.headers['x-courier-cache'], 'HIT')
  t.equal(before.headers['cache-control'], 'private, no-cache', 'a document with a nonce is never shared')

  const file = path.join(dir, 'guides', 'tide-tables.md')
  await writeFile(file, (await readFile(file, 'utf8')).replace('one of the skills', 'the first of the skills'))
  t.match((await app.inject(pagePath)).body, 'one of the skills', 'kept until revalidated')

  const response = await app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization },
    payload: { paths: [pagePath] },
  })
  t.equal(response.statusCode, 200)
  t.match(response.json(), { revalidated: { paths: [pagePath], tags: [] }, instances: 1 })
  const [after, afterData] = await Promise.all([app.inject(pagePath), app.inject(dataUrl)])
  t.match(after.body, 'the first of the skills')
  t.match(afterData.body, 'the first of the skills')
  t.not(afterData.headers.etag, beforeData.headers.etag, 'a new ETag')
  t.equal(afterData.headers['x-deployment-id'], id, 'the same deployment')
  const regenerated = logs().filter((line) => line.msg === 'page regenerated')
  t.equal(regenerated.length, 1, 'one regeneration')
  t.match(regenerated[0], {
    page: 'test-guide',
    path: pagePath,
    reason: 'path',
    outcome: 'regenerated',
    instance: /:\d+$/,
  })
  t.type(regenerated[0]!.durationMs, 'number')
})

t.test(
  'a guide added or removed joins or leaves the list, the sitemap and the pager after revalidating the tag',
  async (t) => {
    const dir = await contentCopy(t)
    const { app, logs } = await build(t, { ...testRoutes, REVALIDATE_TOKEN: token, CONTENT_DIR: dir })
    const guides = await siteContent.guides()
    const last = guides.at(-1)!
    const sitemap = async () =>
      new Set(
        [...(await app.inject('/sitemap-0.xml')).body.matchAll(/<loc>([^<]+)<\/loc>/g)].map(
          (match) => new URL(match[1]!).pathname,
        ),
      )
    t.notMatch((await app.inject(testGuidesPath)).body, 'Freshly written')
    await app.inject(testGuidePath(last.slug))
    await app.inject(testGuidePath(guides[0]!.slug))
    await writeFile(
      path.join(dir, 'guides', 'freshly-written.md'),
      `---\ntitle: "Freshly written"\nsummary: "Added while running."\norder: ${last.order + 1}\n---\n\n## New\n\nText.\n`,
    )
    const told = await app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization },
      payload: { tags: ['guides'] },
    })
    t.equal(told.statusCode, 200)
    t.match((await app.inject(testGuidesPath)).body, 'Freshly written', 'listed')
    t.match(
      (await app.inject(testGuidePath(last.slug))).body,
      /Freshly written(<!-- -->)? →/,
      'the pager of the last guide points at it',
    )
    // The sitemap: every instance the page table derives from the content as it now is, the new guide's too.
    const withIt = (await pageInstances({ content: new ContentSource(dir) })).map((instance) => instance.url)
    t.same(await sitemap(), new Set(withIt), 'the sitemap lists the pages of the content as it now is')
    const runs = () => logs().filter((line) => line.msg === 'page regenerated')
    t.same(
      runs()
        .map((line) => line.path)
        .sort(),
      [testGuidesPath, testGuidePath(last.slug)].sort(),
      'each kept page of the tag asked for since, once: the revalidation only marked them',
    )
    await app.inject(testGuidePath(guides[0]!.slug))
    t.same(
      runs()
        .map((line) => line.path)
        .filter((regenerated) => regenerated === testGuidePath(guides[0]!.slug)),
      [testGuidePath(guides[0]!.slug)],
      'the other marked page regenerates when asked for',
    )

    await unlink(path.join(dir, 'guides', 'freshly-written.md'))
    await app.inject(testGuidePath('freshly-written'))
    await app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization },
      payload: { tags: ['guides'] },
    })
    t.equal((await app.inject(testGuidePath('freshly-written'))).statusCode, 404, 'removed: not found')
    t.notMatch((await app.inject(testGuidesPath)).body, 'Freshly written', 'and gone from the list')
    const without = (await pageInstances({ content: new ContentSource(dir) })).map((instance) => instance.url)
    t.same(await sitemap(), new Set(without), 'and from the sitemap')
  },
)

t.test('bad content on revalidation keeps the last good version, logged with the file and a digest', async (t) => {
  const dir = await contentCopy(t)
  const { site, path: unfilteredPath } = await siteWithUnfilteredPage()
  const { app, logs } = await build(t, { ...testRoutes, REVALIDATE_TOKEN: token, CONTENT_DIR: dir }, { site })
  const good = await app.inject(unfilteredPath)
  t.equal(good.statusCode, 200)
  t.match(
    good.headers['cache-control'],
    /^public, max-age=0, s-maxage=60, stale-while-revalidate=\d+$/,
    `${unfilteredPath} has no nonce: a CDN may keep it`,
  )
  const file = path.join(dir, 'guides', 'tide-tables.md')
  await writeFile(file, (await readFile(file, 'utf8')).replace(/^summary: .*\n/m, ''))
  const told = await app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization },
    payload: { tags: ['guides'] },
  })
  t.equal(told.statusCode, 200)
  t.match(told.json().regenerations, { marked: 1, running: 0, failing: 0 }, 'the answer says what it marked, at once')
  const after = await app.inject(unfilteredPath)
  t.equal(after.statusCode, 200, 'still served')
  t.equal(after.body, good.body, 'the last good version')
  t.match((await app.inject('/api/health')).json().regenerations, { marked: 1, failing: 1, failedTotal: 1 })
  // Marked again: the next request tries again, fails again, and is counted; the error line is not written twice.
  await app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization },
    payload: { tags: ['guides'] },
  })
  t.equal((await app.inject(unfilteredPath)).body, good.body)
  t.match((await app.inject('/api/health')).json().regenerations, { failing: 1, failedTotal: 2 })
  t.equal(logs().filter((line) => line.msg === 'page regeneration failed').length, 1, 'one error line per page')
  t.equal(logs().filter((line) => line.msg === 'page regeneration failed again').length, 1, 'then a debug line')
  const failure = logs().find((line) => line.msg === 'page regeneration failed')
  t.match(failure, { page: 'test-guides', path: unfilteredPath, reason: 'tag', digest: /^[0-9a-f]{10}$/ })
  t.match(
    (failure?.err as { message?: string }).message,
    /guides\/tide-tables\.md is invalid: front matter field summary is missing/,
  )
})

t.test('revalidations are rate-limited per client', async (t) => {
  const { app } = await build(t, { REVALIDATE_TOKEN: token })
  let last = 0
  for (let call = 0; call <= revalidation.maxPerWindow; call++) {
    last = (
      await app.inject({
        method: 'POST',
        url: revalidation.path,
        headers: { authorization },
        payload: { tags: ['none'] },
      })
    ).statusCode
  }
  t.equal(last, 429)
})

t.test(
  'failed calls have a budget of their own per client: a guesser gets 429, even with the right token, while the holder is answered',
  async (t) => {
    const { app, logs } = await build(t, { REVALIDATE_TOKEN: token, TRUST_PROXY: '127.0.0.1' })
    const call = (client: string, authorization: string) =>
      app.inject({
        method: 'POST',
        url: revalidation.path,
        remoteAddress: '127.0.0.1',
        headers: { authorization, 'x-forwarded-for': client },
        payload: { tags: ['none'] },
      })
    const statuses: number[] = []
    for (let guess = 0; guess < 1_000; guess++)
      statuses.push((await call('203.0.113.7', `Bearer guess-${guess}`)).statusCode)
    t.same(
      statuses.slice(0, revalidation.maxFailuresPerWindow),
      Array(revalidation.maxFailuresPerWindow).fill(401),
      'the first failures: 401',
    )
    t.ok(
      statuses.slice(revalidation.maxFailuresPerWindow).every((status) => status === 429),
      'every guess after the budget: 429',
    )
    const refused = await call('203.0.113.7', `Bearer ${token}`)
    t.equal(refused.statusCode, 429, 'the right token from the guessing client is not even compared')
    t.match(refused.json(), { code: 'COURIER_ERR_REVALIDATE_RATE_LIMITED' })
    t.equal(
      (await call('198.51.100.9', `Bearer ${token}`)).statusCode,
      200,
      "the token holder's calls are still answered",
    )
    t.ok(logs().some((line) => line.msg === 'revalidation refused: too many failed calls from this client'))
  },
)

t.test(
  '200 concurrent wrong tokens from one client: at most the budget of 401s, the rest 429 with Retry-After',
  async (t) => {
    const { app } = await build(t, { REVALIDATE_TOKEN: token })
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, guess) =>
        app.inject({
          method: 'POST',
          url: revalidation.path,
          headers: { authorization: `Bearer guess-${guess}` },
          payload: { tags: ['none'] },
        }),
      ),
    )
    const unauthorized = responses.filter((response) => response.statusCode === 401)
    const refused = responses.filter((response) => response.statusCode === 429)
    t.ok(unauthorized.length <= revalidation.maxFailuresPerWindow, `${unauthorized.length} answered 401`)
    t.equal(unauthorized.length + refused.length, 200, 'every other guess: 429')
    const windowSeconds = revalidation.windowMs / 1000
    t.ok(
      refused.every((response) => {
        const retryAfter = Number(response.headers['retry-after'])
        return Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds
      }),
      `each 429 says when to retry (1 to ${windowSeconds} s)`,
    )
    t.match(refused[0]?.json(), { code: 'COURIER_ERR_REVALIDATE_RATE_LIMITED' })
  },
)

t.test('the Bearer scheme in any case; the 401 says what a call needs', async (t) => {
  const { app } = await build(t, { REVALIDATE_TOKEN: token })
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    const response = await app.inject({
      method: 'POST',
      url: revalidation.path,
      headers: { authorization: `${scheme} ${token}` },
      payload: { tags: ['none'] },
    })
    t.equal(response.statusCode, 200, scheme)
  }
  const refused = await app.inject({
    method: 'POST',
    url: revalidation.path,
    headers: { authorization: `Bearer ${token}x` },
    payload: { tags: ['none'] },
  })
  t.equal(refused.statusCode, 401)
  t.match(refused.json(), {
    code: 'COURIER_ERR_REVALIDATE_UNAUTHORIZED',
    message: 'A revalidation needs the bearer token REVALIDATE_TOKEN',
  })
})
