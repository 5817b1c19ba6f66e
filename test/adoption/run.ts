/**
 * `npm run test:adoption`: Courier made into someone else's site, then tested. On a copy of the repository it does
 * what an adopter does by docs/your-site.md: deletes the example's gallery and status pages, every guide and FAQ
 * entry of content/, changes the home page's words and the site's name, follows the guide (a page in the navigation,
 * content, a page with a loader and an image of its own, a dynamic page, a redirect, a guide of its own), and deletes
 * the tests that are about the example and the guide (test/example/, test/guide/, as "Your tests" says). Then, on the
 * copy: `npm run typecheck`, `npm run test:house`, both builds, the unit suite and the browser suite. Every one must
 * pass: Courier's own tests do not depend on the example's pages, titles or words.
 *
 * The browser suite runs in Chromium by default: what an adopter changes is pages and content, the same in every
 * engine, and Firefox and WebKit run the same journeys on the repository's own build (`npm run test:e2e`).
 * `--engine=chromium,firefox,webkit` runs the copy's browser suite in those engines instead. Each edit below names
 * the exact lines it removes or changes: when the example changes, the edit fails and says which line is missing.
 *
 * `--keep` leaves the copy in place (its path is printed) to look at after a failure.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { applyStep, copyRepository, guidePath, readGuideSteps, removeCopy } from '../helpers/guide-steps.ts'

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

/** The example made into another site, as docs/your-site.md says. */
async function adopt(root: string): Promise<void> {
  // Start from a blank site: the gallery page, in the places a page is declared, and its navigation entry.
  edit(root, 'site/data-types.ts', '  gallery: GalleryData\n', '')
  edit(root, 'site/data-types.ts', 'export interface GalleryData {\n  images: PageImage[]\n}\n\n', '')
  edit(
    root,
    'site/pages.ts',
    "  gallery: {\n    path: '/gallery',\n    kind: 'static',\n    head: () => ({ title: titled('Gallery'), description: 'Photographs served through the image optimizer.' }),\n  },\n",
    '',
  )
  edit(
    root,
    'src/pages/loaders.ts',
    '  gallery: {\n    load: () => ({ props: { images: galleryImages } }),\n  },\n',
    '',
  )
  edit(root, 'client/page-modules.ts', "  gallery: () => import('./pages/gallery.tsx'),\n", '')
  rmSync(path.join(root, 'client', 'pages', 'gallery.tsx'))
  edit(root, 'site/layout.tsx', "  { href: '/gallery', label: 'Gallery' },\n", '')

  // The partly prerendered status page likewise: Courier's tests of partial prerendering use a page of their own.
  edit(root, 'site/data-types.ts', '  status: StatusData\n', '')
  edit(
    root,
    'site/pages.ts',
    "  status: {\n    path: '/status',\n    kind: 'dynamic',\n    // A kept shell (headings, explanations, the deployment's facts) with the live figures as holes.\n    prerender: 'partial',\n    head: () => ({ title: titled('Status'), description: 'Live state of this Courier server.' }),\n  },\n",
    '',
  )
  const statusLoader = /  status: \{\n    \/\/ Kept with the prerendered shell[\s\S]*?\n  \},\n/
  const loaders = path.join(root, 'src', 'pages', 'loaders.ts')
  if (!statusLoader.test(readFileSync(loaders, 'utf8')))
    throw new Error('src/pages/loaders.ts: no status loader to delete')
  writeFileSync(loaders, readFileSync(loaders, 'utf8').replace(statusLoader, ''))
  edit(root, 'src/pages/loaders.ts', "import { readProcessMemory } from './process-memory.ts'\n", '')
  edit(root, 'client/page-modules.ts', "  status: () => import('./pages/status.tsx'),\n", '')
  rmSync(path.join(root, 'client', 'pages', 'status.tsx'))
  edit(root, 'site/layout.tsx', "  { href: '/status', label: 'Status' },\n", '')

  // The example's content, all of it: the guides and the FAQ entries.
  const guides = emptyContentFolder(root, 'content/guides')
  const faq = emptyContentFolder(root, 'content/faq')
  say(`deleted the gallery and status pages, ${guides} guides and ${faq} FAQ entries`)

  // The home page's words, its head and the site's name.
  edit(root, 'site/pages.ts', "export const siteName = 'Courier'", "export const siteName = 'Harbour Sailing Club'")
  edit(
    root,
    'site/pages.ts',
    '      title: `${siteName}: React delivery on Fastify`,',
    '      title: `${siteName}: sailing lessons in the east harbour`,',
  )
  edit(
    root,
    'site/pages.ts',
    "      description: 'Courier serves a React site with streaming server rendering, page data and a prefetching router.',",
    "      description: 'Evening and weekend sailing for beginners, with a skipper on every boat.',",
  )
  edit(root, 'site/pages/home.tsx', '<h1>Courier</h1>', '<h1>Harbour Sailing Club</h1>')
  const home = path.join(root, 'client', 'pages', 'home.tsx')
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
  const steps = readGuideSteps(readFileSync(guidePath, 'utf8'))
  for (const step of steps) await applyStep(root, step)
  say(`applied the ${steps.length} steps of docs/your-site.md`)

  // The tests of the example and of the guide (docs/your-site.md "Your tests").
  for (const folder of ['test/example', 'test/guide']) rmSync(path.join(root, folder), { recursive: true })
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

const root = copyRepository('courier-adoption-')
let failed = false
try {
  say(`a copy of the repository in ${root}`)
  await adopt(root)
  await npm(root, 'run', 'typecheck')
  // The guide's modules under src/ keep the shape CI asks of Courier's own code there (docs/your-site.md).
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
