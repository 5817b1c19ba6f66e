/**
 * Hostile content against the real server process (the compiled server, as `npm start` runs it), on a copy of the
 * content folder (docs/content.md "What a content file may be"): a guide of deeply nested blocks, a guide as large and
 * dense as allowed while other clients read other pages, a FIFO and a link to /dev/zero. Each costs its own page at
 * most; every other URL answers, the memory stays bounded. Run by `npm run test:reliability`.
 */
import t, { type Test } from 'tap'
import { execFileSync } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { contentLayout } from '../../config/content.ts'
import { publicSitePages as pages } from '../helpers/page-table.ts'
import { testGuidePath, testRoutes } from '../helpers/site-pages.ts'
import { siteContent } from '../helpers/content.ts'
import { startServer, type ServerProcess } from './server-process.ts'

/** The test build's guide page (test/site/pages/), whatever pages the site has. */
const guidePath = testGuidePath

async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-hostile-content-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

const frontMatter = (title: string) =>
  `---\ntitle: "${title}"\nsummary: "A guide of the test's own."\norder: 900\n---\n\n`

const agent = new Agent({ keepAlive: true, maxSockets: 8 })
t.teardown(() => agent.destroy())

function get(server: ServerProcess, url: string): Promise<{ status: number; ms: number }> {
  const startedAt = performance.now()
  return new Promise((resolve, reject) => {
    const outgoing = request(`${server.origin}${url}`, { agent }, (response) => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - startedAt }))
    })
    outgoing.on('error', reject)
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`GET ${url} timed out`)))
    outgoing.end()
  })
}

async function rssMib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!

t.test(
  'a nested guide is refused at once, a large dense one parses off the event loop while other pages answer',
  async (t) => {
    const dir = await contentCopy(t)
    const slugs = (await siteContent.guideSummaries()).map((guide) => guide.slug)
    const line = '- A list item with *emphasis*, a [link](/somewhere) and `code`.\n  > a quote in it\n\n'
    const dense =
      frontMatter('Dense') + '## Dense\n\n' + line.repeat(Math.floor((contentLayout.maxFileBytes - 300) / line.length))
    const nestedLine = '>'.repeat(64) + ' deep\n'
    const nested =
      frontMatter('Nested') +
      '## Nested\n\n' +
      nestedLine.repeat(Math.floor((contentLayout.maxFileBytes - 300) / nestedLine.length))
    await writeFile(path.join(dir, 'guides', 'dense.md'), dense)
    await writeFile(path.join(dir, 'guides', 'nested.md'), nested)
    t.ok(
      Buffer.byteLength(dense) <= contentLayout.maxFileBytes && Buffer.byteLength(nested) <= contentLayout.maxFileBytes,
    )
    const server = await startServer(t, { env: { ...testRoutes, CONTENT_DIR: dir } })

    const refused = await get(server, guidePath('nested'))
    t.equal(refused.status, 500, 'the nested guide: a 500 (it never had a good version)')
    const failure = await server.logLine(
      (line) =>
        typeof line.err === 'object' &&
        /nested\.md is invalid: body line \d+ nests/.test(String((line.err as { message?: string }).message)),
    )
    t.ok(failure, 'logged with the file and the rule, refused before parsing')
    t.equal((await get(server, guidePath('nested'))).status, 500, 'the same at once for the next visitor')

    // Four clients read pages that show no body of these guides while the dense guide is parsed.
    const others = ['/', guidePath(slugs[0]!), guidePath(slugs[1]!)]
    let parsing = true
    const latencies: number[] = []
    const statuses = new Map<number, number>()
    const clients = Array.from({ length: 4 }, async (_, client) => {
      for (let index = client; parsing; index++) {
        const { status, ms } = await get(server, others[index % others.length]!)
        latencies.push(ms)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    })
    const denseAnswer = await get(server, guidePath('dense'))
    parsing = false
    await Promise.all(clients)
    t.equal(denseAnswer.status, 200, 'the dense guide is served once parsed')
    t.same([...statuses.keys()], [200], 'every other page answered 200 meanwhile')
    t.comment(
      `dense guide (${Buffer.byteLength(dense)} B) answered in ${denseAnswer.ms.toFixed(0)} ms; meanwhile ${latencies.length} requests ` +
        `of other pages, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    )
  },
)

t.test(
  'a FIFO and a link to /dev/zero in CONTENT_DIR: 404 with a warn line, bounded memory, every other URL answers',
  async (t) => {
    const dir = await contentCopy(t)
    execFileSync('mkfifo', [path.join(dir, 'guides', 'pipe.md')])
    await symlink('/dev/zero', path.join(dir, 'guides', 'zero.md'))
    await symlink('/etc/hostname', path.join(dir, 'faq', 'hostname.md'))
    const server = await startServer(t, { env: { ...testRoutes, CONTENT_DIR: dir } })
    for (const slug of ['pipe', 'zero'])
      t.equal((await get(server, guidePath(slug))).status, 404, `${slug}: no such guide`)
    const warned = await server.logLine((line) => line.msg === 'content file refused' && line.file === 'guides/zero.md')
    t.match(warned, { level: 40, reason: 'a link that leads out of CONTENT_DIR' })
    t.ok(
      await server.logLine(
        (line) =>
          line.msg === 'content file refused' && line.file === 'guides/pipe.md' && line.reason === 'not a regular file',
      ),
    )
    for (const page of pages.filter((candidate) => !candidate.path.includes(':'))) {
      t.equal((await get(server, page.path)).status, 200, `${page.path} answers`)
    }
    const rss = await rssMib(server.pid)
    t.ok(rss < 300, `RSS ${rss.toFixed(0)} MiB, under 300 MiB`)
    t.ok(
      server.logs().some((line) => line.msg === 'content file refused' && line.file === 'faq/hostname.md'),
      'a link out of the folder in the FAQ is left out too',
    )
  },
)
