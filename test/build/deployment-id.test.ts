import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { loadConfig } from '../../config/env.ts'

const run = promisify(execFile)
const config = loadConfig({})

async function buildInto(env: Record<string, string>): Promise<{ dir: string; id: string; html: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'courier-build-'))
  await run('npx', ['vite', 'build', '--app', '--logLevel', 'error'], {
    cwd: config.rootDir,
    env: { ...process.env, ...env, DIST_DIR: dir },
  })
  const id = (JSON.parse(readFileSync(path.join(dir, 'deployment.json'), 'utf8')) as { deploymentId: string })
    .deploymentId
  return { dir, id, html: readFileSync(path.join(dir, 'client', 'index.html'), 'utf8') }
}

t.test('DEPLOYMENT_ID at build time pins the id everywhere', async (t) => {
  const { dir, id, html } = await buildInto({ DEPLOYMENT_ID: 'release-2026.11' })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  t.equal(id, 'release-2026.11')
  t.match(html, /index-[\w-]+\.js\?dpl=release-2026\.11"/)
})

t.test('without it the id is a hash of the client build: the same sources give the same id', async (t) => {
  const { dir, id } = await buildInto({ DEPLOYMENT_ID: '' })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  t.match(id, /^[0-9a-f]{16}$/)
  const current = JSON.parse(readFileSync(path.join(config.distDir, 'deployment.json'), 'utf8')) as {
    deploymentId: string
  }
  if (process.env.DEPLOYMENT_ID) t.comment('the main build was pinned by DEPLOYMENT_ID: nothing to compare')
  else t.equal(id, current.deploymentId, 'reproducible')
})
