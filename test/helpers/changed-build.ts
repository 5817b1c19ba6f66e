/**
 * A second deployment of the site: a copy of the project in which one page shows one more line, built into a folder
 * of its own. That page's chunk (and the chunks that name it) get new hashes; chunks that name none keep theirs. The
 * page is the page table's first `static` page without parameters other than `/`, whatever the site holds; its module
 * (`site/pages/<id>.tsx`) is wrapped, not edited, so no words of the page are assumed.
 */
import { spawnSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import type { PageDefinition } from '../../src/common/page-types.ts'
import { sitePages as pages } from './page-table.ts'

export interface ChangedBuild {
  /** The copy of the project (its node_modules a link to this one's). */
  sourceDir: string
  /** Its build: client/, server/, node/, deployment.json. */
  distDir: string
  /** The page that changed: its build holds `<p id="<marker>">` before the page's own content. */
  page: PageDefinition
  remove: () => Promise<void>
}

/** The page a second deployment changes. */
export const changedPage: PageDefinition = (() => {
  const page = pages.find(
    (candidate) => candidate.kind === 'static' && candidate.path !== '/' && !candidate.path.includes(':'),
  )
  if (!page) throw new Error('the page table has no static page without parameters besides /')
  return page
})()

/** Whether a built file is the script chunk of page `id` (`<id>-<8-character hash>.js`; `guide-list-*` is not `guide`'s). */
export function isPageChunk(id: string, fileName: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`^${escaped}-[\\w-]{8}\\.js$`).test(fileName)
}

/** The copy's page module: the page as it was, with the marker line above it. */
function wrapper(id: string, marker: string): string {
  return `import Page from '../before-change/${id}.tsx'

export * from '../before-change/${id}.tsx'

export default function ChangedPage(props: Parameters<typeof Page>[0]) {
  return (
    <>
      <p id="${marker}">Deployment B</p>
      <Page {...props} />
    </>
  )
}
`
}

export async function buildWithChangedPage(marker: string): Promise<ChangedBuild> {
  const sourceDir = await mkdtemp(path.join(tmpdir(), 'courier-changed-build-'))
  const remove = () => rm(sourceDir, { recursive: true, force: true })
  try {
    for (const entry of [
      'client',
      'site',
      'config',
      'src',
      'plugins',
      'content',
      'vite.config.ts',
      'package.json',
      'tsconfig.json',
    ]) {
      await cp(path.join(projectRoot, entry), path.join(sourceDir, entry), { recursive: true })
    }
    await symlink(path.join(projectRoot, 'node_modules'), path.join(sourceDir, 'node_modules'))
    // The page as it was moves beside the pages' folder, at the same depth (its imports stay right): a page folder
    // holds pages only.
    const pagesDir = path.join(sourceDir, 'site', 'pages')
    const beforeDir = path.join(sourceDir, 'site', 'before-change')
    const id = changedPage.id
    await mkdir(beforeDir)
    await rename(path.join(pagesDir, `${id}.tsx`), path.join(beforeDir, `${id}.tsx`))
    await writeFile(path.join(pagesDir, `${id}.tsx`), wrapper(id, marker))
    const distDir = path.join(sourceDir, 'dist')
    const built = spawnSync('npm', ['run', 'build'], {
      cwd: sourceDir,
      env: { ...process.env, DIST_DIR: distDir },
      encoding: 'utf8',
      timeout: 240_000,
    })
    if (built.status !== 0) throw new Error(`the changed build failed: ${built.stderr}${built.stdout}`)
    return { sourceDir, distDir, page: changedPage, remove }
  } catch (error) {
    await remove()
    throw error
  }
}
