/**
 * `npm run test:e2e`: runs the browser suite (test/e2e/*.test.ts) with tap, against the production build in dist/.
 *
 * Without Debian's Chromium at /usr/bin/chromium the suite is skipped with a line saying so, unless
 * COURIER_REQUIRE_BROWSER=true (CI), where a missing browser fails the run. Nothing here downloads a browser.
 * The exit code is tap's.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants, existsSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromiumPath } from './harness.ts'

const suiteDir = path.dirname(fileURLToPath(import.meta.url))
const projectRoot = path.resolve(suiteDir, '..', '..')
/** The whole run, whatever tap's per-file time-outs do: a wedged run must end (ten files take ~3 min on 2 cores). */
const runTimeoutMs = 10 * 60_000
/** Per test file (tap's --timeout, seconds): one server, one browser, a dozen page loads. */
const fileTimeoutS = 90

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

if (!executable(chromiumPath)) {
  if (process.env.COURIER_REQUIRE_BROWSER === 'true') {
    process.stderr.write(
      `e2e: FAILED: no executable Chromium at ${chromiumPath}, and COURIER_REQUIRE_BROWSER=true requires the browser suite. ` +
        `Install Debian's chromium package (apt-get install chromium).\n`,
    )
    process.exit(1)
  }
  process.stdout.write(
    `e2e: SKIPPED: no executable Chromium at ${chromiumPath} (install Debian's chromium package to run the browser ` +
      `suite; set COURIER_REQUIRE_BROWSER=true to fail instead of skipping)\n`,
  )
  process.exit(0)
}

for (const [build, command] of [['dist', 'npm run build'], ['dist-test', 'npm run build:test']] as const) {
  const distDir = path.resolve(projectRoot, process.env.DIST_DIR ?? build)
  if (!existsSync(path.join(distDir, 'deployment.json'))) {
    process.stderr.write(`e2e: FAILED: no build in ${distDir}: run \`${command}\` first.\n`)
    process.exit(1)
  }
}

const files = readdirSync(suiteDir)
  .filter((name) => name.endsWith('.test.ts'))
  .sort()
  .map((name) => path.relative(projectRoot, path.join(suiteDir, name)))
if (files.length === 0) {
  process.stderr.write(`e2e: FAILED: no test files in ${path.relative(projectRoot, suiteDir)}\n`)
  process.exit(1)
}

const require = createRequire(import.meta.url)
const tapBin = path.join(path.dirname(require.resolve('tap/package.json')), 'dist', 'esm', 'run.mjs')

// Files are passed by name: .taprc's `exclude: test/e2e/**` keeps them out of the unit run, not out of this one.
const child = spawn(
  process.execPath,
  [
    tapBin,
    '--reporter=tap',
    '--disable-coverage',
    '--jobs=1',
    `--timeout=${fileTimeoutS}`,
    ...files,
  ],
  {
    cwd: projectRoot,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_ENV: 'production',
      // tap's ts-node needs TypeScript's JS API, which the native TS 7 lacks (TOOLCHAIN.md).
      TS_NODE_COMPILER: 'typescript5',
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    },
  },
)

const guard = setTimeout(() => {
  process.stderr.write(`e2e: FAILED: the run took longer than ${runTimeoutMs / 1000} s; stopping tap\n`)
  child.kill('SIGTERM')
  setTimeout(() => child.kill('SIGKILL'), 5_000).unref()
}, runTimeoutMs)
guard.unref()

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => child.kill(signal))
}

child.on('error', (error) => {
  process.stderr.write(`e2e: FAILED: could not start tap: ${error.message}\n`)
  process.exit(1)
})

child.on('exit', (code, signal) => {
  clearTimeout(guard)
  process.exit(code ?? (signal ? 1 : 0))
})
