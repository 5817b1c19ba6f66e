/**
 * Tracing is optional: the compiled server without OTEL_* variables loads no module of OpenTelemetry (nor
 * @fastify/otel), and with them it does (so the check can fail). A bad variable stops start-up with exit code 78.
 * A collector that is gone costs no request anything.
 */
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../helpers/free-port.ts'
import { until } from '../helpers/otlp-receiver.ts'
import { projectRoot, serverEntry, startServer } from '../reliability/server-process.ts'
import { guides } from '../helpers/content.ts'
import { testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'

const tracingModule = /[\\/]node_modules[\\/](@opentelemetry|@fastify[\\/]otel)[\\/]/

/** Every file the server process compiled, from its V8 coverage (written by Node at exit). */
async function filesLoaded(t: Test, env: Record<string, string>): Promise<string[]> {
  const coverageDir = await mkdtemp(path.join(tmpdir(), 'courier-tracing-modules-'))
  t.teardown(() => rm(coverageDir, { recursive: true, force: true }))
  const server = await startServer(t, { env: { ...env, NODE_V8_COVERAGE: coverageDir } })
  const page = await fetch(`${server.origin}/`)
  t.equal(page.status, 200)
  t.equal(
    (await page.text()).includes('name="traceparent"'),
    env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    'a traceparent meta only when on',
  )
  t.equal((await server.stop()).code, 0)
  const files: string[] = []
  for (const name of await readdir(coverageDir)) {
    const report = JSON.parse(await readFile(path.join(coverageDir, name), 'utf8')) as {
      result: Array<{ url: string }>
    }
    files.push(
      ...report.result.filter((script) => script.url.startsWith('file:')).map((script) => fileURLToPath(script.url)),
    )
  }
  t.ok(files.includes(serverEntry), 'the list is of what ran')
  return files
}

t.test('off: no OpenTelemetry module is loaded; on: they are', async (t) => {
  const off = await filesLoaded(t, {})
  t.same(
    off.filter((file) => tracingModule.test(file)),
    [],
    'off: none',
  )
  // The collector need not be there for the SDK to load (nor for requests to be answered).
  const on = await filesLoaded(t, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}` })
  t.ok(
    on.some((file) => file.includes(`${path.sep}@fastify${path.sep}otel${path.sep}`)),
    'on: @fastify/otel',
  )
  t.ok(
    on.some((file) => file.includes(`${path.sep}@opentelemetry${path.sep}sdk-trace-base${path.sep}`)),
    'on: the SDK',
  )
})

t.test('a bad OTEL_* value stops start-up with exit code 78 and names the variable', async (t) => {
  const child = spawn(process.execPath, [serverEntry], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '10%',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(code, 78)
  t.match(stderr, /courier: invalid environment: OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/)
})

t.test('the collector gone: every request is answered, spans are dropped, not kept', async (t) => {
  const server = await startServer(t, {
    env: {
      ...testRoutes,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
  })
  const statuses = new Map<number, number>()
  // Pages of every kind (the test build's): the home page, a dynamic one, kept ones, and the 404 page.
  const paths = ['/', '/__test/partial', testGuidesPath, testGuidePath(guides[0]!.slug), '/no-such-page']
  for (let round = 0; round < 20; round++) {
    const responses = await Promise.all(paths.map((url) => fetch(`${server.origin}${url}`)))
    for (const response of responses) {
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
  }
  t.same(Object.fromEntries(statuses), { 200: 80, 404: 20 }, 'no 5xx')
  t.same(
    server.logs().filter((line) => line.level >= 50),
    [],
    'no error line',
  )
  const problem = await until('a line about the failed export', () =>
    server.logs().find((line) => line.msg === 'tracing: OpenTelemetry reported a problem'),
  )
  t.equal(problem.level, 40, 'the failed export is a warn line')
})
