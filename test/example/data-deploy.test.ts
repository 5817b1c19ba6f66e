/**
 * The example's data outlives deploys (docs/your-site.md "Data the site writes"): deployed by deploy/rolling-deploy.ts
 * behind its nginx, a reader makes an account (the example's SQLite, in `<state>/data`); a second deployment (a build
 * of a copy with one page changed) replaces the first, whose release is pruned (`--keep 1`); the reader signs in with
 * the same password on the new one. A test of the example, not of Courier: a site of your own adapts or deletes it.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { buildWithChangedPage } from '../helpers/changed-build.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { firstDeploy, readDeployState, runDeploy, stateFolder } from '../scale/deploy-run.ts'

// Two deployments (one a build of its own) on a 2-core machine: minutes.
t.setTimeout(600_000)

const form = { 'content-type': 'application/x-www-form-urlencoded' }
/** The deploy starts Debian's nginx; without it (a fresh machine's `npm test`) this is skipped, never under CI. */
const withoutNginx =
  spawnSync('nginx', ['-v']).status !== 0 && process.env.CI !== 'true'
    ? 'nginx is not installed (the deploy starts it: apt-get install nginx libnginx-mod-http-brotli-static)'
    : false
const reader = 'name=data-keeper&password=a-password-that-outlives-deploys'

t.test(
  'an account made on one deployment signs in on the next, after the first release is pruned',
  { skip: withoutNginx },
  async (t) => {
    const state = await stateFolder(t, { LOG_LEVEL: 'info' })
    const changed = await buildWithChangedPage('data-deploy-marker')
    t.teardown(changed.remove)
    const common = (port: number) => [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--instances',
      '1',
      '--keep',
      '1',
    ]
    const first = await firstDeploy(1, ([port]) => [...common(port!), '--dist', path.join(projectRoot, 'dist')])
    t.equal(first.run.code, 0, 'the first deployment is live')
    if (first.run.code !== 0) return t.comment(first.run.output)
    const origin = `http://127.0.0.1:${first.ports[0]}`
    const [before] = (await readDeployState(state)).deployments
    const releaseBefore = path.join(state, 'releases', before!.id)
    t.ok(existsSync(releaseBefore), 'the first deployment has a release folder of its own')

    const made = await fetch(`${origin}/sign-in`, {
      method: 'POST',
      headers: form,
      body: `intent=create&${reader}`,
      redirect: 'manual',
    })
    t.equal(made.status, 303, 'the account is made')
    t.ok(existsSync(path.join(state, 'data', 'site.db')), "the database is in the state's data folder")

    const second = await runDeploy([
      ...common(first.ports[0]!),
      '--dist',
      changed.distDir,
      '--source',
      changed.sourceDir,
    ])
    t.equal(second.code, 0, 'the second deployment is live')
    if (second.code !== 0) return t.comment(second.output)
    const [after] = (await readDeployState(state)).deployments
    t.not(after!.id, before!.id, 'another deployment serves')
    t.notOk(existsSync(releaseBefore), "the first deployment's release was pruned")

    const signedIn = await fetch(`${origin}/sign-in`, {
      method: 'POST',
      headers: form,
      body: `intent=sign-in&${reader}`,
      redirect: 'manual',
    })
    t.equal(signedIn.status, 303, 'the same name and password sign in on the new deployment')
    t.equal(signedIn.headers.get('location'), '/account')
  },
)
