/**
 * The browser targets (config/browsers.ts), checked on what ships: eslint-plugin-compat, with those targets as its
 * browserslist and every ES built-in included (Vite lowers syntax but adds no polyfill), over the client's sources
 * and over every built chunk (React included). An API beyond a target is allowed only where the code guards it and
 * has a fallback: those are listed below, each with its guard, and in docs/browsers.md.
 */
import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import browserslist from 'browserslist'
import { Linter } from 'eslint'
import compat from 'eslint-plugin-compat'
import ts from 'typescript5'
import { browserTargets } from '../../config/browsers.ts'
import { loadConfig } from '../../config/env.ts'

const projectRoot = path.resolve(import.meta.dirname, '..', '..')
/** The build under test: `npm test` builds first. */
const clientBuildDir = path.join(loadConfig({}).distDir, 'client')

/**
 * APIs beyond a target that ship, each behind a guard with a fallback. `where`: the source files that use them (for
 * React's own, the chunk that holds react-dom).
 */
const guardedApis: Record<string, { where: string[]; guard: string }> = {
  IntersectionObserver: {
    where: ['client/router/near-viewport.ts'],
    guard:
      'Safari 12 has none: `typeof IntersectionObserver !== "function"` makes nothing "near", and hovering a link still prefetches it',
  },
  'navigator.connection()': {
    where: ['client/router/prefetch-queue.ts', 'react-dom (estimated bandwidth)'],
    guard:
      'Safari 12 (and desktop Firefox) has no Network Information API: Courier reads `navigator.connection?.saveData` (absent: no Save-Data), react-dom checks `navigator.connection &&` before reading `downlink`',
  },
}

/** `chrome64` (Vite's build.target form) as browserslist spells it: `chrome 64`. */
function browserslistQuery(target: string): string {
  const match = /^([a-z]+)(\d+(?:\.\d+)?)$/.exec(target)
  if (!match) throw new Error(`config/browsers.ts: ${target} is not <browser><version>`)
  return `${match[1]} ${match[2]}`
}

const browsers = browserTargets.map(browserslistQuery)
const linter = new Linter({ configType: 'flat' })
const lintConfig: Linter.Config[] = [
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { compat },
    // lintAllEsApis: also built-ins such as Promise.allSettled or Object.fromEntries, which nothing polyfills.
    settings: { browsers, lintAllEsApis: true },
    rules: { 'compat/compat': 'error' },
  },
]

interface Finding {
  file: string
  line: number
  api: string
  message: string
}

function lint(code: string, file: string): Finding[] {
  return linter.verify(code, lintConfig, file.replace(/\.tsx?$/, '.js')).map((message) => {
    if (message.ruleId !== 'compat/compat') throw new Error(`${file}:${message.line}: ${message.message}`)
    return {
      file,
      line: message.line,
      api: message.message.replace(/ is not supported in .*$/, ''),
      message: message.message,
    }
  })
}

function filesUnder(folder: string, accept: (file: string) => boolean): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter(accept)
    .sort()
}

/** A client source as JavaScript, types and JSX removed (the plugin reads JavaScript); lines may shift a little. */
function transpiled(file: string): string {
  return ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.ReactJSX },
  }).outputText
}

t.test('the targets resolve to the five browsers of config/browsers.ts', async (t) => {
  t.same(browsers, ['chrome 64', 'edge 79', 'firefox 67', 'opera 51', 'safari 12'])
  t.same(
    browserslist(browsers),
    ['chrome 64', 'edge 79', 'firefox 67', 'opera 51', 'safari 12'],
    'browserslist knows each',
  )
})

t.test('the check finds an unguarded API beyond the targets (it is not vacuous)', async (t) => {
  const findings = lint('new ResizeObserver(() => {}); Promise.allSettled([]); document.fonts.ready', 'control.js')
  t.same(
    findings.map((finding) => finding.api),
    ['ResizeObserver', 'Promise.allSettled()'],
    'ResizeObserver (Safari 13.1) and Promise.allSettled (Chrome 76) are flagged; document.fonts (Safari 10) is not',
  )
  t.ok(
    findings.every((finding) => finding.message.includes('Safari 12')),
    'both beyond Safari 12',
  )
})

const sourceFindings = filesUnder(
  path.join(projectRoot, 'client'),
  (file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'),
).flatMap((file) => lint(transpiled(file), path.relative(projectRoot, file)))
const chunkFindings = filesUnder(clientBuildDir, (file) => file.endsWith('.js')).flatMap((file) =>
  lint(readFileSync(file, 'utf8'), path.relative(projectRoot, file)),
)

t.test('client sources: nothing beyond the targets but the guarded APIs, where they are guarded', async (t) => {
  const unguarded = sourceFindings.filter((finding) => !guardedApis[finding.api]?.where.includes(finding.file))
  t.same(
    unguarded.map((finding) => `${finding.file}:${finding.line}: ${finding.message}`),
    [],
  )
})

t.test('built chunks (React included): nothing beyond the targets but the guarded APIs', async (t) => {
  t.ok(filesUnder(clientBuildDir, (file) => file.endsWith('.js')).length > 5, 'the client build is there')
  const unguarded = chunkFindings.filter((finding) => !guardedApis[finding.api])
  t.same(
    unguarded.map((finding) => `${finding.file}:${finding.line}: ${finding.message}`),
    [],
  )
})

t.test('every guarded API listed is still in use (the list stays true)', async (t) => {
  for (const api of Object.keys(guardedApis)) {
    t.ok(
      [...sourceFindings, ...chunkFindings].some((finding) => finding.api === api),
      `${api} is used: ${guardedApis[api]!.guard}`,
    )
  }
})
