import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { build } from '../helpers/app.ts'

t.test('the server takes the id of the build', async (t) => {
  const { app, config } = await build(t)
  const built = JSON.parse(readFileSync(path.join(config.distDir, 'deployment.json'), 'utf8')) as {
    deploymentId: string
  }
  t.match(built.deploymentId, /^[A-Za-z0-9._-]{1,64}$/)
  t.equal(app.deploymentId, built.deploymentId, "the build's own id, not one of the server's making")
})

t.test('a DEPLOYMENT_ID that is not the build’s stops start-up with a coded error', async (t) => {
  await t.rejects(build(t, { DEPLOYMENT_ID: 'not-this-build' }), { code: 'COURIER_ERR_DEPLOYMENT_MISMATCH' })
})

t.test('no build: start-up stops with a coded error that says what to run', async (t) => {
  const empty = mkdtempSync(path.join(tmpdir(), 'courier-empty-'))
  t.teardown(() => rmSync(empty, { recursive: true, force: true }))
  await t.rejects(build(t, { DIST_DIR: empty }), { code: 'COURIER_ERR_BUILD_MISSING', message: /npm run build/ })
})
