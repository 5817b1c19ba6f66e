/**
 * `npm run deploy`'s script and what it trusts (deploy/state-trust.ts, docs/running-at-scale.md "The state folder"),
 * with a real second local user: a state folder pre-made by another user, holding a `courier.env` whose NODE_OPTIONS
 * would run that user's code in the instances, is refused with exit 1 and its code, and nothing runs (no nginx, no
 * instance, no build, the folder left as it was); a `courier.env` others may read, the same. A first deploy into a
 * folder it makes leaves nothing of the state readable by another user but the shared assets nginx's workers (user
 * `nobody`) serve, which they still do; its instance listens on a Unix socket the other user cannot connect to, and on
 * no TCP port (docs/running-at-scale.md "Instances on Unix sockets"). The many cases of the check itself: test/deploy/state-trust.test.ts.
 *
 * Needs root, to hand a folder to another user and to ask as `nobody` (CI runs as root); skipped otherwise.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { instanceName } from '../../deploy/instance-socket.ts'
import { listeningPorts } from '../../deploy/process-identity.ts'
import { publishedManifests } from '../../deploy/shared-assets.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { firstDeploy, processesMentioning, readDeployState, runDeploy, type DeployRun } from './deploy-run.ts'

const isRoot = process.getuid?.() === 0
const otherUser = 'courier-test-other'
const dist = path.join(projectRoot, defaultDistDir(false))

function otherUid(): number {
  if (spawnSync('id', ['-u', otherUser]).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', otherUser])
    if (made.status !== 0) throw new Error(`useradd ${otherUser} failed: ${made.stderr}`)
  }
  return Number(spawnSync('id', ['-u', otherUser], { encoding: 'utf8' }).stdout.trim())
}

/** A state folder in the system's temporary folder (`made/<inside>`, made by the deploy, with `inside`); on teardown,
 * made the tests' own again, stopped (should a deploy have started anything in it) and removed. */
function stateFolder(t: Test, inside?: string): string {
  const made = mkdtempSync(path.join(tmpdir(), 'courier-trust-'))
  const state = inside ? path.join(made, inside) : made
  // Open to others, as /srv is: nginx's workers (user nobody) pass through it.
  if (inside) chmodSync(made, 0o755)
  t.teardown(async () => {
    spawnSync('chown', ['-R', 'root:root', made])
    chmodSync(made, 0o700)
    if (existsSync(path.join(state, 'courier.env'))) chmodSync(path.join(state, 'courier.env'), 0o600)
    if (existsSync(state)) await runDeploy(['--stop', '--state', state])
    rmSync(made, { recursive: true, force: true })
  })
  return state
}

const lastLine = (lines: DeployRun['lines']): DeployRun['lines'][number] => lines.at(-1) ?? { msg: '' }

t.test(
  'a state folder another user made, with their courier.env: refused, nothing runs, the folder stays theirs',
  { skip: isRoot ? false : 'needs root to give a folder to another user' },
  async (t) => {
    const uid = otherUid()
    const state = stateFolder(t)
    // What the other user leaves: their code, run by every instance through NODE_OPTIONS.
    const marker = path.join(state, 'ran-as')
    const payload = path.join(state, 'payload.cjs')
    writeFileSync(payload, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.getuid()))\n`)
    writeFileSync(path.join(state, 'courier.env'), `NODE_OPTIONS=--require=${payload}\nLOG_LEVEL=info\n`)
    chmodSync(path.join(state, 'courier.env'), 0o666)
    chmodSync(state, 0o777)
    spawnSync('chown', ['-R', `${uid}:${uid}`, state])

    const { run } = await firstDeploy(1, ([port]) => [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--instances',
      '1',
      '--dist',
      dist,
    ])
    t.equal(run.code, 1, 'exit 1')
    const line = lastLine(run.lines)
    t.equal(line.msg, 'deploy failed')
    t.equal(line.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', 'with its code')
    t.match(String(line.error), `the state folder ${state} is owned by uid ${uid}`, 'naming the folder and its owner')
    t.equal(run.lines.length, 1, 'one line: no step began')
    t.notOk(existsSync(marker), "the other user's code never ran")
    t.notOk(existsSync(path.join(state, 'nginx')), 'no nginx prefix')
    t.notOk(existsSync(path.join(state, 'state.json')), 'no state written')
    t.same(await processesMentioning(state), [], 'no process of the state runs')
    t.equal(statSync(state).uid, uid, 'the folder is still theirs (not taken over)')

    const stop = await runDeploy(['--stop', '--state', state])
    t.equal(stop.code, 1, '--stop refuses it too')
    t.equal(lastLine(stop.lines).code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE')
    const reload = await runDeploy(['--reload', '--state', state])
    t.equal(lastLine(reload.lines).code, 'COURIER_ERR_DEPLOY_UNTRUSTED_STATE', 'and --reload')
  },
)

t.test(
  'a courier.env others may read (0644): refused before the build, nothing runs',
  { skip: isRoot ? false : 'needs root' },
  async (t) => {
    const state = stateFolder(t)
    writeFileSync(path.join(state, 'courier.env'), 'REVALIDATE_TOKEN=secret\n', { mode: 0o644 })
    chmodSync(path.join(state, 'courier.env'), 0o644)
    const { run } = await firstDeploy(1, ([port]) => [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--dist',
      dist,
    ])
    t.equal(run.code, 1, 'exit 1')
    const line = lastLine(run.lines)
    t.equal(line.code, 'COURIER_ERR_DEPLOY_UNTRUSTED_ENV_FILE')
    t.equal(
      line.error,
      `${state}/courier.env is mode 644, open to other users: \`chmod 600 ${state}/courier.env\``,
      'the path and the fix, in one line',
    )
    t.notOk(
      run.lines.some((one) => one.msg === 'step'),
      'no step began',
    )
    t.notOk(existsSync(path.join(state, 'nginx')), 'no nginx prefix')
  },
)

/** Every file under `root` (folders walked, not listed: nginx's master makes `cache/`'s for its workers, and
 * `acme/`'s are certbot's webroot); sockets left out (who may connect to one is asked by connecting). */
function filesUnder(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(root, entry.name)
    if (entry.isSocket()) return []
    return entry.isDirectory() ? filesUnder(full) : [full]
  })
}

/** Those of `files` that `user` can read (each folder on the way passed through, the file's own mode allowing). */
function readableBy(user: string, files: string[]): string[] {
  const asked = spawnSync(
    'runuser',
    ['-u', user, '--', 'sh', '-c', 'while IFS= read -r f; do [ -r "$f" ] && printf "%s\\n" "$f"; done; true'],
    { input: files.join('\n'), encoding: 'utf8' },
  )
  if (asked.status !== 0) throw new Error(`runuser failed: ${asked.stderr}`)
  return asked.stdout.split('\n').filter(Boolean)
}

/** What `user` gets connecting to the Unix socket `socketPath`: `connected`, or the error's code. */
function connectAs(user: string, socketPath: string): string {
  const script =
    "const s = require('node:net').connect(process.argv[1]);" +
    "s.on('connect', () => { console.log('connected'); s.destroy() }); s.on('error', (e) => console.log(e.code))"
  const asked = spawnSync('runuser', ['-u', user, '--', process.execPath, '-e', script, socketPath], {
    encoding: 'utf8',
  })
  return asked.stdout.trim() || `no answer: ${asked.stderr}`
}

t.test(
  "a first deploy into a folder it makes: the state is the user's alone, but for the assets nginx's workers serve",
  { skip: isRoot ? false : 'needs root to run nginx with workers of another user' },
  async (t) => {
    const state = stateFolder(t, 'state')
    const { ports, run } = await firstDeploy(1, ([port]) => [
      '--state',
      state,
      '--listen',
      `127.0.0.1:${port}`,
      '--instances',
      '1',
      '--dist',
      dist,
    ])
    if (run.code !== 0) throw new Error(`the deploy failed:\n${run.output}`)
    t.equal(statSync(state).mode & 0o777, 0o711, 'the state folder: 0700 as made, passable (not listable) by nginx')

    const files = filesUnder(state)
    const deployment = (await readDeployState(state)).deployments[0]!
    const mustBePrivate = [
      path.join(state, 'state.json'),
      path.join(state, 'front-door.json'),
      path.join(state, 'watcher.log'),
      path.join(state, 'nginx', 'logs', 'access.log'),
      path.join(state, 'nginx', 'logs', 'error.log'),
      path.join(state, 'nginx', 'listen.conf'),
      path.join(state, 'instances', `${instanceName(deployment.instances[0]!)}.json`),
      deployment.instances[0]!.log,
    ]
    for (const file of mustBePrivate) t.ok(files.includes(file), `${path.relative(state, file)} is there`)
    const readable = readableBy('nobody', files)
    const assets = path.join(state, 'nginx', 'assets')
    t.same(
      readable.filter((file) => !file.startsWith(`${assets}${path.sep}`)),
      [],
      'nobody reads nothing of the state but the shared assets',
    )
    t.ok(readable.length > 0, 'which nginx workers read')

    const [manifest] = await publishedManifests(assets)
    const chunk = manifest!.files.find((name) => name.endsWith('.js'))!
    const answer = await fetch(
      `http://127.0.0.1:${ports[0]}/_next/static/chunks/${chunk}?dpl=${manifest!.deploymentId}`,
    )
    t.equal(answer.status, 200, 'an asset answers 200')
    t.equal(answer.headers.get('x-courier-asset'), 'shared-folder', "read by nginx's workers from the shared folder")
    await answer.arrayBuffer()

    // The instance past nginx: no TCP port at all, and its socket out of another local user's reach.
    const instance = deployment.instances[0]!
    t.same([...(await listeningPorts(instance.pid))], [], 'the instance listens on no TCP port')
    t.equal(statSync(path.join(state, 'sockets')).mode & 0o777, 0o710, "the sockets' folder: nginx's workers pass")
    otherUid()
    t.equal(connectAs(otherUser, instance.socket!), 'EACCES', 'another local user cannot connect to the instance')
    t.equal(connectAs('nobody', instance.socket!), 'connected', "nginx's workers' user can")
    const page = await fetch(`http://127.0.0.1:${ports[0]}/api/ready`)
    t.equal(page.status, 200, 'and nginx reaches it')
    await page.arrayBuffer()
  },
)
