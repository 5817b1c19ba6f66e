/**
 * A second deployment of the site: a copy of the project whose FAQ page says one more line, built into a folder of
 * its own. Its FAQ chunk (and the entry chunk that names it) get new hashes; every other chunk keeps its name. The
 * scale suite's rolling deploy makes its deployment B the same way.
 */
import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'

export interface ChangedBuild {
  /** The copy of the project (its node_modules a link to this one's). */
  sourceDir: string
  /** Its build: client/, server/, node/, deployment.json. */
  distDir: string
  remove: () => Promise<void>
}

export async function buildWithChangedFaq(marker: string): Promise<ChangedBuild> {
  const sourceDir = await mkdtemp(path.join(tmpdir(), 'courier-changed-build-'))
  const remove = () => rm(sourceDir, { recursive: true, force: true })
  try {
    for (const entry of ['client', 'site', 'config', 'src', 'plugins', 'content', 'vite.config.ts', 'package.json', 'tsconfig.json']) {
      await cp(path.join(projectRoot, entry), path.join(sourceDir, entry), { recursive: true })
    }
    await symlink(path.join(projectRoot, 'node_modules'), path.join(sourceDir, 'node_modules'))
    const faqFile = path.join(sourceDir, 'client', 'pages', 'faq.tsx')
    const faq = await readFile(faqFile, 'utf8')
    const heading = '<h1>Frequently asked questions</h1>'
    if (!faq.includes(heading)) throw new Error(`client/pages/faq.tsx no longer has ${heading}`)
    await writeFile(faqFile, faq.replace(heading, `${heading}\n      <p id="${marker}">Deployment B</p>`))
    const distDir = path.join(sourceDir, 'dist')
    const built = spawnSync('npm', ['run', 'build'], {
      cwd: sourceDir,
      env: { ...process.env, DIST_DIR: distDir },
      encoding: 'utf8',
      timeout: 240_000,
    })
    if (built.status !== 0) throw new Error(`the changed build failed: ${built.stderr}${built.stdout}`)
    return { sourceDir, distDir, remove }
  } catch (error) {
    await remove()
    throw error
  }
}
