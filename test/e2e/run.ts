/**
 * `npm run test:e2e`: the browser suite, with tap, against the production build in dist/, in three engines:
 * - chromium: the Chromium suite (test/e2e/*.test.ts, playwright-core), the example site's own tests
 *   (test/example/*.test.ts, when the folder is there) and the journeys (test/e2e/journeys/);
 * - firefox, webkit: the journeys, written once over the suite's driver layer (test/e2e/engines/).
 *
 * An engine whose Debian packages are missing is reported and skipped, unless COURIER_REQUIRE_BROWSER=true (CI):
 * then a missing engine fails the run. Nothing here downloads a browser. Engines run side by side, two at a time
 * (COURIER_E2E_PARALLEL), each run's output printed whole when it ends, then one line per engine.
 *
 * Arguments narrow a run while working on it: `--engine=firefox` (or a comma list) and words of which a test file's
 * path must contain one, e.g. `node test/e2e/run.ts --engine=webkit journeys/errors journeys/images`.
 * The exit code is 0 only if every run that ran passed and no required engine was missing.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { engineNames, isEngineName, missingFor, type EngineName } from './engines/index.ts'

const suiteDir = path.dirname(fileURLToPath(import.meta.url))
const projectRoot = path.resolve(suiteDir, '..', '..')
/** The whole run, whatever tap's per-file time-outs do: a wedged run must end (all of it takes ~6 min on 2 cores). */
const runTimeoutMs = 20 * 60_000
/** Per test file (tap's --timeout, seconds): one server, one browser, a dozen page loads. */
const fileTimeoutS = 120
/** Engines run at once: the CI machine has 2 cores; each run is one browser and one server at a time. */
const parallel = Math.max(1, Number(process.env.COURIER_E2E_PARALLEL ?? 2))
const required = process.env.COURIER_REQUIRE_BROWSER === 'true'

function testFiles(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => path.relative(projectRoot, path.join(folder, name)))
}

const args = process.argv.slice(2)
const engineArgument = args.find((arg) => arg.startsWith('--engine='))?.slice('--engine='.length)
const words = args.filter((arg) => !arg.startsWith('--'))
const wanted = engineArgument ? engineArgument.split(',') : [...engineNames]
const unknown = wanted.filter((name) => !isEngineName(name))
if (unknown.length > 0) {
  process.stderr.write(`e2e: FAILED: unknown engine ${unknown.join(', ')} (chromium, firefox, webkit)\n`)
  process.exit(1)
}
const matches = (file: string) => words.length === 0 || words.some((word) => file.includes(word))

for (const [build, command] of [
  ['dist', 'npm run build'],
  ['dist-test', 'npm run build:test'],
] as const) {
  const distDir = path.resolve(projectRoot, process.env.DIST_DIR ?? build)
  if (!existsSync(path.join(distDir, 'deployment.json'))) {
    process.stderr.write(`e2e: FAILED: no build in ${distDir}: run \`${command}\` first.\n`)
    process.exit(1)
  }
}

// The example site's own browser tests (test/example/), when a site still has them: Chromium only.
const exampleDir = path.join(projectRoot, 'test', 'example')
const chromiumSuite = [...testFiles(suiteDir), ...(existsSync(exampleDir) ? testFiles(exampleDir) : [])]
const journeys = testFiles(path.join(suiteDir, 'journeys'))
if (chromiumSuite.length === 0 || journeys.length === 0) {
  process.stderr.write('e2e: FAILED: no test files in test/e2e or test/e2e/journeys\n')
  process.exit(1)
}

interface Run {
  engine: EngineName
  files: string[]
}

interface Outcome {
  engine: EngineName
  status: 'passed' | 'failed' | 'skipped'
  detail: string
  seconds?: number
}

const outcomes: Outcome[] = []
const runs: Run[] = []
for (const engine of engineNames) {
  if (!wanted.includes(engine)) continue
  const missing = missingFor(engine)
  if (missing.length > 0) {
    const what = missing.map(({ file, pkg }) => `${file} (Debian package ${pkg})`).join(', ')
    outcomes.push({ engine, status: required ? 'failed' : 'skipped', detail: `missing ${what}` })
    continue
  }
  const files = (engine === 'chromium' ? [...chromiumSuite, ...journeys] : journeys).filter(matches)
  if (files.length > 0) runs.push({ engine, files })
}

const require = createRequire(import.meta.url)
const tapBin = path.join(path.dirname(require.resolve('tap/package.json')), 'dist', 'esm', 'run.mjs')
const children = new Set<ReturnType<typeof spawn>>()

/** One engine's files through tap, one file at a time; its output is kept and printed whole when it ends. */
function runEngine({ engine, files }: Run): Promise<Outcome> {
  const started = Date.now()
  return new Promise((resolve) => {
    // Files are passed by name: .taprc's `exclude: test/e2e/**` keeps them out of the unit run, not out of this one.
    const child = spawn(
      process.execPath,
      [tapBin, '--reporter=tap', '--disable-coverage', '--jobs=1', `--timeout=${fileTimeoutS}`, ...files],
      {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          NODE_ENV: 'production',
          PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
          COURIER_E2E_ENGINE: engine,
        },
      },
    )
    children.add(child)
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const finish = (code: number | null, error?: Error) => {
      children.delete(child)
      const seconds = (Date.now() - started) / 1000
      process.stdout.write(`\n== e2e ${engine}: ${files.length} files\n${output}`)
      if (error) process.stdout.write(`e2e: could not start tap for ${engine}: ${error.message}\n`)
      const counts = [...output.matchAll(/^# (\{ total: .*\})$/gm)].at(-1)?.[1] ?? 'no tap summary'
      resolve({ engine, status: code === 0 ? 'passed' : 'failed', detail: `${files.length} files, ${counts}`, seconds })
    }
    child.on('error', (error) => finish(1, error))
    child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)))
  })
}

const guard = setTimeout(() => {
  process.stderr.write(`e2e: FAILED: the run took longer than ${runTimeoutMs / 1000} s; stopping tap\n`)
  for (const child of children) {
    child.kill('SIGTERM')
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref()
  }
}, runTimeoutMs)
guard.unref()

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal)
  })
}

// The longest run first, so the others fit beside it.
const queue = [...runs].sort((a, b) => b.files.length - a.files.length)
await Promise.all(
  Array.from({ length: Math.min(parallel, queue.length) }, async () => {
    for (let run = queue.shift(); run; run = queue.shift()) outcomes.push(await runEngine(run))
  }),
)
clearTimeout(guard)

process.stdout.write('\n== e2e, by engine\n')
for (const engine of engineNames) {
  const outcome = outcomes.find((entry) => entry.engine === engine)
  if (!outcome) continue
  const time = outcome.seconds === undefined ? '' : ` in ${outcome.seconds.toFixed(0)} s`
  const status = outcome.status.toUpperCase()
  const hint = outcome.status === 'skipped' ? ' (set COURIER_REQUIRE_BROWSER=true to fail instead of skipping)' : ''
  process.stdout.write(`e2e ${engine}: ${status}: ${outcome.detail}${time}${hint}\n`)
}
if (runs.length === 0) {
  const skipped = outcomes.length > 0 && outcomes.every((outcome) => outcome.status === 'skipped')
  if (skipped) process.stdout.write('e2e: SKIPPED: no engine installed\n')
  else {
    process.stderr.write(`e2e: FAILED: no test file matches ${words.join(' ')}\n`)
    process.exit(1)
  }
}
process.exit(outcomes.some((outcome) => outcome.status === 'failed') ? 1 : 0)
