/**
 * WEB_CONCURRENCY: the real process (src/server.ts as `npm start` runs it) as a cluster of workers on one port.
 * Workers share the requests and write the access lines with their own pid; a worker that dies is replaced with a
 * warn line; SIGTERM drains every worker (a response in flight completes) and the primary exits 0; without Redis a
 * revalidation reaches every worker through the primary.
 */
import t from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { request } from 'undici'
import { siteContent } from '../helpers/content.ts'
import { startServer } from '../reliability/server-process.ts'
import type { LogLine } from '../helpers/app.ts'
import { testGuidePath } from '../helpers/site-pages.ts'

/** The test build's partly prerendered page (test/site/pages/): rendered on every request. */
const dynamicPage = '/__test/partial'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = check()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

function startedWorkers(logs: LogLine[]): number[] {
  return logs.filter((line) => line.msg === 'worker started').map((line) => line.workerPid as number)
}

/** A request on a connection of its own: node:cluster hands connections, not requests, to workers. */
async function getFresh(url: string): Promise<{ status: number; body: string }> {
  const response = await request(url, { headers: { connection: 'close' } })
  return { status: response.statusCode, body: await response.body.text() }
}

t.test('WEB_CONCURRENCY=2: two workers share the port and log their own pid; a dead worker is replaced', async (t) => {
  const server = await startServer(t, { env: { WEB_CONCURRENCY: '2', COURIER_TEST_ROUTES: 'true' } })
  const workers = await waitFor('two started workers', () => {
    const pids = startedWorkers(server.logs())
    return pids.length >= 2 ? pids : undefined
  })
  t.equal(new Set(workers).size, 2, 'two distinct worker processes')
  t.notOk(workers.includes(server.pid), 'the primary serves nothing itself')
  const primaryLines = server.logs().filter((line) => line.pid === server.pid)
  t.ok(
    primaryLines.some((line) => line.msg === 'starting workers' && line.workers === 2),
    'the primary says how many',
  )

  // Both must be listening before connections are spread over them.
  await waitFor('both workers listening', () => {
    const listening = new Set(
      server
        .logs()
        .filter((line) => /Server listening/.test(line.msg))
        .map((line) => line.pid),
    )
    return listening.size >= 2 ? true : undefined
  })
  for (let index = 0; index < 40; index += 1) {
    const answer = await getFresh(`${server.origin}${dynamicPage}`)
    t.equal(answer.status, 200, `request ${index}`, { diagnostic: false })
  }
  await waitFor('40 access lines', () => (server.accessCounts().total >= 40 ? true : undefined), 10_000)
  const accessPids = new Set(
    server
      .logs()
      .filter((line) => line.msg === 'request completed' && line.url === dynamicPage)
      .map((line) => line.pid),
  )
  t.same(
    [...accessPids].sort(),
    [...workers].sort(),
    'access lines carry the pid of the worker that answered, and both answered',
  )

  // Kill one worker outright: the primary says so and forks a replacement; the site keeps answering meanwhile.
  const victim = workers[0]!
  process.kill(victim, 'SIGKILL')
  const died = await waitFor('the died line', () =>
    server.logs().find((line) => line.msg === 'worker died: replacing it'),
  )
  t.equal(died.workerPid, victim)
  t.equal(died.signal, 'SIGKILL')
  t.equal(died.level, 40, 'a warn line')
  t.type(died.restartInMs, 'number')
  for (let index = 0; index < 10; index += 1)
    t.equal((await getFresh(`${server.origin}/api/health`)).status, 200, 'served while one worker is down', {
      diagnostic: false,
    })
  const replacement = await waitFor('a replacement worker', () =>
    startedWorkers(server.logs()).find((pid) => !workers.includes(pid)),
  )
  t.not(replacement, victim)
  await waitFor('the replacement listening', () =>
    server.logs().some((line) => line.pid === replacement && /Server listening/.test(line.msg)) ? true : undefined,
  )
  const exit = await server.stop()
  t.same(exit, { code: 0, signal: null }, 'SIGTERM: the primary exits 0 once every worker has drained')
})

t.test(
  'SIGTERM with a response in flight: every worker drains, the response completes, the primary exits 0',
  async (t) => {
    const server = await startServer(t, { env: { WEB_CONCURRENCY: '2', COURIER_TEST_ROUTES: 'true' } })
    await waitFor('both workers listening', () => {
      const listening = new Set(
        server
          .logs()
          .filter((line) => /Server listening/.test(line.msg))
          .map((line) => line.pid),
      )
      return listening.size >= 2 ? true : undefined
    })
    const slow = getFresh(`${server.origin}/__test/slow?delay=1500`)
    await sleep(300)
    const exited = server.stop()
    const answer = await slow
    t.equal(answer.status, 200, 'the response in flight completes')
    t.match(answer.body, /id="slow-section"/, 'with its slow part')
    t.same(await exited, { code: 0, signal: null })
    const logs = server.logs()
    t.ok(logs.some((line) => line.msg === 'closing: draining every worker' && line.signal === 'SIGTERM'))
    t.equal(logs.filter((line) => line.msg === 'closed').length, 2, 'each worker closed gracefully')
    t.ok(logs.some((line) => line.msg === 'all workers exited' && line.failedExits === 0))
    t.notOk(
      logs.some((line) => line.msg === 'worker died: replacing it'),
      'a drained worker is not replaced',
    )
  },
)

t.test(
  'WEB_CONCURRENCY=2 without Redis: a revalidation one worker takes reaches the other through the primary',
  async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'courier-cluster-content-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await cp(siteContent.dir, dir, { recursive: true })
    const token = 'cluster-test-token-0123456789abcdefghi'
    const server = await startServer(t, {
      env: { WEB_CONCURRENCY: '2', COURIER_TEST_ROUTES: 'true', CONTENT_DIR: dir, REVALIDATE_TOKEN: token },
    })
    await waitFor('both workers listening', () => {
      const listening = new Set(
        server
          .logs()
          .filter((line) => /Server listening/.test(line.msg))
          .map((line) => line.pid),
      )
      return listening.size >= 2 ? true : undefined
    })
    const guide = testGuidePath('tide-tables')
    // Connections go to the workers in turn: enough of them that both have kept the guide.
    for (let index = 0; index < 20; index += 1)
      t.match((await getFresh(`${server.origin}${guide}`)).body, 'one of the skills', { diagnostic: false })
    await waitFor('20 access lines for the guide', () =>
      server.logs().filter((line) => line.msg === 'request completed' && line.url === guide).length >= 20
        ? true
        : undefined,
    )
    const servedBy = new Set(
      server
        .logs()
        .filter((line) => line.msg === 'request completed' && line.url === guide)
        .map((line) => line.pid),
    )
    t.equal(servedBy.size, 2, 'both workers kept the guide')

    const file = path.join(dir, 'guides', 'tide-tables.md')
    await writeFile(file, (await readFile(file, 'utf8')).replace('one of the skills', 'the first of the skills'))
    const response = await request(`${server.origin}/api/revalidate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ paths: [guide] }),
    })
    t.equal(response.statusCode, 200)
    t.equal(((await response.body.json()) as { instances: number }).instances, 2, 'both workers told')
    for (let index = 0; index < 20; index += 1) {
      t.match(
        (await getFresh(`${server.origin}${guide}`)).body,
        'the first of the skills',
        `request ${index}: the new version`,
        { diagnostic: false },
      )
    }
    const regenerated = new Set(
      server
        .logs()
        .filter((line) => line.msg === 'page regenerated' && line.path === guide)
        .map((line) => line.pid),
    )
    t.equal(regenerated.size, 2, 'each worker regenerated its kept page')
    t.same(await server.stop(), { code: 0, signal: null })
  },
)
