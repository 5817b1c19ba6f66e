/**
 * `npm run test:adoption`: Courier made into someone else's site, updated, then tested. On a clone of the repository at
 * an earlier commit (`--from=<commit>`; by default the first whose example lives in site/) it does what an adopter does
 * by docs/your-site.md, editing site/ and content/ only: deletes the example's gallery and status pages, every guide and FAQ
 * entry of content/, changes the home page's words and the site's name, follows the guide (a page in the navigation,
 * content, a page with a loader and an image of its own, a dynamic page, a redirect, a guide of its own), and deletes
 * the tests that are about the example and the guide (test/example/, test/guide/, as "Your tests" says), and commits.
 * Then it merges this checkout's commit (HEAD) into it, as "Taking Courier's updates" says: a conflict in any file of
 * Courier's own fails; one in the adopter's files is settled by keeping theirs. Then, on the merged copy: `npm run typecheck`, `npm run test:house`, both builds, the unit suite and the browser suite. Every one must
 * pass: Courier's own tests do not depend on the example's pages, titles or words.
 *
 * The browser suite runs in Chromium by default: what an adopter changes is pages and content, the same in every
 * engine, and Firefox and WebKit run the same journeys on the repository's own build (`npm run test:e2e`).
 * `--engine=chromium,firefox,webkit` runs the copy's browser suite in those engines instead. Each edit below names
 * the exact lines it removes or changes: when the example changes, the edit fails and says which line is missing.
 *
 * `--keep` leaves the copy in place (its path is printed) to look at after a failure.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { applyStep, readGuideSteps, removeCopy } from '../helpers/guide-steps.ts'

const keep = process.argv.includes('--keep')
const engines = process.argv.find((arg) => arg.startsWith('--engine=')) ?? '--engine=chromium'
const started = Date.now()

function say(text: string): void {
  process.stdout.write(`== adoption: ${text} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`)
}

/** Replaces `from` (which must occur exactly once) with `to` in the copy's `file`. */
function edit(root: string, file: string, from: string, to: string): void {
  const full = path.join(root, file)
  const text = readFileSync(full, 'utf8')
  const count = text.split(from).length - 1
  if (count !== 1) throw new Error(`${file}: ${JSON.stringify(from.slice(0, 80))} occurs ${count} times, not once`)
  writeFileSync(full, text.replace(from, to))
}

/** Deletes every Markdown file of a content folder, keeping the folder (a page that reads it stays). */
function emptyContentFolder(root: string, folder: string): number {
  const dir = path.join(root, folder)
  const files = readdirSync(dir).filter((name) => name.endsWith('.md'))
  for (const name of files) rmSync(path.join(dir, name))
  return files.length
}

/** The example made into another site, as docs/your-site.md says: edits under site/ and content/ only. */
async function adopt(root: string): Promise<void> {
  // Start from a blank site: the gallery page (its module and server half) and its navigation entry.
  for (const file of ['gallery.tsx', 'gallery.server.ts']) rmSync(path.join(root, 'site', 'pages', file))
  edit(root, 'site/layout.tsx', "  { href: '/gallery', label: 'Gallery' },\n", '')
  // The partly prerendered status page likewise: Courier's tests of partial prerendering use a page of their own.
  for (const file of ['status.tsx', 'status.server.ts']) rmSync(path.join(root, 'site', 'pages', file))
  edit(root, 'site/layout.tsx', "  { href: '/status', label: 'Status' },\n", '')

  // The example's content, all of it: the guides and the FAQ entries.
  const guides = emptyContentFolder(root, 'content/guides')
  const faq = emptyContentFolder(root, 'content/faq')
  say(`deleted the gallery and status pages, ${guides} guides and ${faq} FAQ entries`)

  // The home page's words, its head and the site's name.
  edit(root, 'site/site.ts', "export const siteName = 'Courier'", "export const siteName = 'Harbour Sailing Club'")
  edit(
    root,
    'site/pages/home.tsx',
    '    title: `${siteName}: React delivery on Fastify`,',
    '    title: `${siteName}: sailing lessons in the east harbour`,',
  )
  edit(
    root,
    'site/pages/home.tsx',
    "    description: 'Courier serves a React site with streaming server rendering, page data and a prefetching router.',",
    "    description: 'Evening and weekend sailing for beginners, with a skipper on every boat.',",
  )
  edit(root, 'site/pages/home.tsx', '<h1>Courier</h1>', '<h1>Harbour Sailing Club</h1>')
  const home = path.join(root, 'site', 'pages', 'home.tsx')
  const lead = /<p className="lead">[\s\S]*?<\/p>/
  if (!lead.test(readFileSync(home, 'utf8'))) throw new Error('site/pages/home.tsx: no lead paragraph to change')
  writeFileSync(
    home,
    readFileSync(home, 'utf8').replace(
      lead,
      '<p className="lead">Learn to sail on a real boat, with a skipper beside you.</p>',
    ),
  )

  // Pages, content, a loader, an image and a guide of its own: docs/your-site.md, block by block.
  const steps = readGuideSteps(readFileSync(path.join(root, 'docs', 'your-site.md'), 'utf8'))
  for (const step of steps) await applyStep(root, step)
  say(`applied the ${steps.length} steps of docs/your-site.md`)

  // The tests of the example and of the guide (docs/your-site.md "Your tests").
  for (const folder of ['test/example', 'test/guide']) rmSync(path.join(root, folder), { recursive: true })
}

/** A git command in `cwd`; its standard output. */
function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Adopter', '-c', 'user.email=adopter@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  })
  if (result.status !== 0 && !(args[0] === 'merge' && result.status === 1)) {
    throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`)
  }
  return result.stdout
}

/** The files an adopter owns (docs/your-site.md "Taking Courier's updates"): a conflict there is theirs to settle. */
function isAdoptersFile(file: string): boolean {
  return (
    /^(site|content)\//.test(file) || /^test\/(example|guide)\//.test(file) || file.startsWith('client/public/images/')
  )
}

/**
 * Courier's later commit merged into the adopted site: no conflict in Courier's own files; a conflict in one of the
 * adopter's is settled by keeping theirs (an edited file) or their deletion, as the doc says.
 */
function mergeCourier(root: string, commit: string): void {
  git(root, 'merge', '--no-edit', '--no-ff', commit)
  const conflicted = git(root, 'diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean)
  const courier = conflicted.filter((file) => !isAdoptersFile(file))
  if (courier.length > 0) throw new Error(`the merge conflicts in Courier's own files: ${courier.join(', ')}`)
  for (const file of conflicted) {
    // Theirs edited: keep the adopter's version; theirs deleted (no version of ours): keep it deleted.
    const ours = spawnSync('git', ['checkout', '--ours', '--', file], { cwd: root })
    if (ours.status === 0) git(root, 'add', '--', file)
    else git(root, 'rm', '-q', '--', file)
  }
  // What the update added to the example's and the guide's tests, which the adopter deleted: deleted again.
  const arrived = ['test/example', 'test/guide'].filter((folder) => existsSync(path.join(root, folder)))
  for (const folder of arrived) git(root, 'rm', '-r', '-q', '-f', '--', folder)
  if (conflicted.length > 0) git(root, 'commit', '-q', '--no-edit')
  else if (arrived.length > 0) git(root, 'commit', '-q', '-m', 'Delete the tests of the example and the guide again')
  say(
    `merged ${commit.slice(0, 12)}: ${conflicted.length} conflicts, all in the adopter's files (${conflicted.join(', ') || 'none'})`,
  )
}

/**
 * A clone of this repository at the commit an adopter started from (`--from=<commit>`, else the first commit with
 * the site's own folder, below), with this checkout's node_modules linked in.
 */
function cloneAt(from: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'courier-adoption-'))
  git(projectRoot, 'clone', '-q', '--no-checkout', projectRoot, root)
  git(root, 'checkout', '-q', '-b', 'our-site', from)
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir')
  return root
}

/** An npm script in the copy, its output passed through; throws when it fails. */
function npm(root: string, ...args: string[]): Promise<void> {
  say(`npm ${args.join(' ')}`)
  return new Promise((resolve, reject) => {
    // Without a loader a parent (tap) may have put into NODE_OPTIONS, as in a terminal.
    const env = { ...process.env }
    delete env.NODE_OPTIONS
    const child = spawn('npm', args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] })
    child.on('error', reject)
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`npm ${args.join(' ')} failed (${code ?? signal})`)),
    )
  })
}

/** The first commit whose example lives in site/ as page modules: where the adoption starts unless told. */
const firstSiteCommit = '19269b5c5c1ed5e7147aa2486908787c81242305'
const asked = process.argv.find((arg) => arg.startsWith('--from='))?.slice('--from='.length)
const current = git(projectRoot, 'rev-parse', 'HEAD').trim()
/** Whether this checkout holds `commit` (a shallow clone may not: then the adoption starts at HEAD, and says so). */
const holds = (commit: string) =>
  spawnSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: projectRoot }).status === 0
const from = asked ?? (holds(firstSiteCommit) ? firstSiteCommit : current)
if (from === current && asked === undefined) {
  say(
    `this checkout does not hold ${firstSiteCommit.slice(0, 12)} (a shallow clone?): adopting HEAD, no update to merge`,
  )
}
const root = cloneAt(from)
let failed = false
try {
  say(`a clone of the repository at ${from.slice(0, 12)} in ${root}`)
  await adopt(root)
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'Our site')
  if (from !== current) mergeCourier(root, current)
  await npm(root, 'run', 'typecheck')
  await npm(root, 'run', 'test:house')
  await npm(root, 'run', 'build')
  await npm(root, 'run', 'build:test')
  await npm(root, 'run', 'test:unit')
  await npm(root, 'run', 'test:e2e', '--', engines)
  say(
    `PASSED: the adopted site type-checks, keeps the house shape, builds, and passes the unit suite and the browser suite (${engines})`,
  )
} catch (error) {
  failed = true
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  if (keep) say(`the copy stays in ${root}`)
  else removeCopy(root)
}
process.exit(failed ? 1 : 0)
