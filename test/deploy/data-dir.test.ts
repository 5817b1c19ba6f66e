/**
 * The site's data outlives deploys (docs/running-at-scale.md "The state folder", docs/your-site.md "Data the site
 * writes"): every release's instances get the state's own `data/` as DATA_DIR, a folder no release holds, so neither a
 * new release nor the pruning of old ones touches it; an operator's courier.env may name another. And the site's data
 * folder is made on first use, private to its user, and no build reads it.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { instanceEnv } from '../../deploy/instance-env.ts'
import { statePaths, type StatePaths } from '../../deploy/state.ts'
import { listBuildSources } from '../../src/build/index.ts'
import { projectRoot } from '../../config/env.ts'
import { siteDataDir } from '../../src/site-data.ts'

function stateOf(t: Test, env: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'courier-data-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const paths = statePaths(dir)
  writeFileSync(paths.envFile, env, { mode: 0o600 })
  return paths
}

/** The instances' environment a deploy on this state would give. */
function envOf(paths: StatePaths) {
  return instanceEnv({
    envFile: paths.envFile,
    listen: '127.0.0.1:8080',
    tls: undefined,
    distDir: undefined,
    dataDir: paths.data,
  })
}

t.test("every release's instances keep their data in the state, outside every release", async (t) => {
  const paths = stateOf(t, 'LOG_LEVEL=info\n')
  t.equal(paths.data, path.join(paths.dir, 'data'))
  t.notOk(paths.data.startsWith(paths.releases + path.sep), 'not under releases/, which a deploy prunes')
  const { env } = await envOf(paths)
  t.equal(env.DATA_DIR, paths.data)
})

t.test("courier.env's DATA_DIR wins over the state's folder", async (t) => {
  const paths = stateOf(t, 'DATA_DIR=/srv/shared-data\n')
  const { env } = await envOf(paths)
  t.equal(env.DATA_DIR, '/srv/shared-data')
})

t.test('the data folder is made on first use, private, and no build reads it', async (t) => {
  const parent = mkdtempSync(path.join(tmpdir(), 'courier-data-'))
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const dir = siteDataDir({ DATA_DIR: path.join(parent, 'site-data') })
  t.equal(dir, path.join(parent, 'site-data'))
  t.equal(statSync(dir).mode & 0o777, 0o700)
  t.notOk(
    listBuildSources(projectRoot).includes('data'),
    'the default data/ is no build source: a release never copies it',
  )
})
