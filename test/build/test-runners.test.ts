import t from 'tap'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

/**
 * Every test file is run by one of the suites README "Quick start" names: `npm run test:unit` (tap, the files of
 * .taprc), `npm run test:e2e` (test/e2e/: its suite and journeys, and the example's own test/example/*.test.ts, in
 * test/e2e/run.ts) or a script that names its files
 * (`test:reliability`, `test:scale`, `test:metrics`). A file none of them reaches passes nowhere and fails nowhere.
 */
const root = path.resolve(import.meta.dirname, '..', '..')

function testFilesUnder(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name)
    if (entry.isDirectory()) return testFilesUnder(relative)
    return entry.name.endsWith('.test.ts') ? [relative] : []
  })
}

/** The `files:` list of .taprc: folders and files that `tap` runs when given none. */
function tapFiles(): string[] {
  const lines = readFileSync(path.join(root, '.taprc'), 'utf8').split('\n')
  const start = lines.findIndex((line) => line.trim() === 'files:')
  const entries: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue
    const entry = /^\s+-\s+(\S+)\s*$/.exec(line)
    if (!entry) break
    entries.push(entry[1]!.replace(/\/$/, ''))
  }
  return entries
}

/** The test files a package.json script names, each `*` standing for any name within one folder. */
function scriptPatterns(): RegExp[] {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
  return Object.values(scripts)
    .flatMap((script) => script.split(/\s+/).filter((word) => word.endsWith('.test.ts')))
    .map((pattern) => new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`))
}

function reachedBy(file: string, taps: string[], patterns: RegExp[]): boolean {
  if (taps.some((entry) => file === entry || file.startsWith(entry + '/'))) return true
  if (file.startsWith('test/e2e/')) return true
  // test/e2e/run.ts runs test/example/*.test.ts in Chromium (not its subfolders).
  if (/^test\/example\/[^/]+\.test\.ts$/.test(file)) return true
  return patterns.some((pattern) => pattern.test(file))
}

t.test('every test file is run by one of the suites', async (t) => {
  const files = testFilesUnder('test')
  t.ok(files.length > 50, `found the test files (${files.length})`)
  const taps = tapFiles()
  t.ok(taps.length > 0, '.taprc lists the files tap runs')
  const patterns = scriptPatterns()
  t.same(
    files.filter((file) => !reachedBy(file, taps, patterns)),
    [],
    'no test file outside .taprc, test/e2e/, test/example/ and the scripts that name their files',
  )
})

t.test('the check itself: a file outside every list is found', async (t) => {
  t.notOk(reachedBy('test/nowhere/orphan.test.ts', ['test/plugins'], [/^test\/reliability\/[^/]*\.test\.ts$/]))
  t.ok(reachedBy('test/plugins/errors.test.ts', ['test/plugins'], []))
  t.ok(reachedBy('test/reliability/fuzz.test.ts', [], [/^test\/reliability\/[^/]*\.test\.ts$/]))
  t.notOk(reachedBy('test/reliability/deeper/x.test.ts', [], [/^test\/reliability\/[^/]*\.test\.ts$/]))
})
