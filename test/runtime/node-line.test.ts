import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import {
  isSupportedNode,
  minimumNode,
  minimumNodeVersion,
  unsupportedNodeExitCode,
  unsupportedNodeLine,
} from '../../src/runtime/node-line.mjs'

const projectRoot = path.resolve(import.meta.dirname, '..', '..')
const readJson = (file: string) =>
  JSON.parse(readFileSync(path.join(projectRoot, file), 'utf8')) as Record<string, unknown>

interface PackageJson {
  engines: { node: string }
  devDependencies: Record<string, string>
  allowScripts: Record<string, boolean>
  scripts: Record<string, string>
}

t.test('engines, .node-version, the pinned devDependency and its lock entry name one Node release', async (t) => {
  const pkg = readJson('package.json') as unknown as PackageJson
  const lock = readJson('package-lock.json') as { packages: Record<string, { version: string }> }
  t.equal(pkg.engines.node, `>=${minimumNodeVersion()}`, 'engines.node')
  t.equal(readFileSync(path.join(projectRoot, '.node-version'), 'utf8').trim(), minimumNodeVersion(), '.node-version')
  t.equal(
    pkg.devDependencies['node'],
    `^${minimumNodeVersion()}`,
    'the devDependency `node`: that line, that release or newer',
  )
  t.equal(lock.packages['node_modules/node']?.version, minimumNodeVersion(), 'the lock file installs that release')
  t.equal(
    pkg.devDependencies['@types/node']?.replace(/^\^/, '').split('.')[0],
    String(minimumNode.major),
    '@types/node of the same line',
  )
  t.equal(
    pkg.allowScripts['node'],
    true,
    "npm may run the `node` package's install script (it puts the binary in place)",
  )
})

t.test('every npm script that runs Node code checks the Node first, or runs on a checked entry', async (t) => {
  const { scripts } = readJson('package.json') as unknown as PackageJson
  for (const [name, script] of Object.entries(scripts)) {
    if (name === 'test') {
      t.match(script, /^npm run typecheck && /, 'test: its first step checks')
      continue
    }
    if (name === 'start' || name === 'dev') {
      t.match(script, / (dist\/node|src)\/server\.(js|ts)$/, `${name}: the entry that refuses an older Node`)
      continue
    }
    if (name === 'prestart') {
      t.equal(script, 'node src/build/ensure-build.mjs', 'prestart: the build check, which refuses first')
      continue
    }
    t.match(script, /^node src\/runtime\/check-node\.mjs && /, `${name}: checks the Node first`)
  }
})

t.test('which versions pass', async (t) => {
  t.ok(isSupportedNode(process.version), `this test's own Node (${process.version})`)
  t.ok(isSupportedNode(`v${minimumNodeVersion()}`))
  t.ok(isSupportedNode(`v${minimumNode.major}.${minimumNode.minor + 1}.0`))
  t.ok(isSupportedNode(`v${minimumNode.major + 1}.0.0`), 'a newer line')
  t.notOk(isSupportedNode(`v${minimumNode.major}.${minimumNode.minor - 1}.9`), 'an older release of the line')
  t.notOk(isSupportedNode('v24.21.0'))
  t.notOk(isSupportedNode('v20.20.2'))
  t.notOk(isSupportedNode('not a version'))
})

t.test('the line says what to do: install the pinned Node, or start another', async (t) => {
  t.equal(unsupportedNodeLine({ version: process.version, projectRoot, underNpm: true }), undefined)
  const missing = unsupportedNodeLine({
    version: 'v20.20.2',
    projectRoot: path.join(projectRoot, 'no-such-folder'),
    underNpm: true,
  })
  t.match(
    missing,
    /^courier: Node\.js v20\.20\.2 is older than \d+\.\d+\.\d+, the oldest Courier runs on; node_modules\/\.bin\/node is missing: `npm ci` installs/,
  )
  t.notMatch(missing, /\n/, 'one line')
  const direct = unsupportedNodeLine({ version: 'v20.20.2', projectRoot, underNpm: false })
  t.match(direct, /start it with Node \d+ \(\.node-version names the release\)/)
})

// A process whose Node says it is older (process.version replaced before anything loads): the same path as a real
// older Node, on any machine.
const olderNode = `data:text/javascript,Object.defineProperty(process,'version',{value:'v20.20.2'})`

for (const [name, entry] of [
  ['check-node (every npm script)', 'src/runtime/check-node.mjs'],
  ['the build check (npm start)', 'src/build/ensure-build.mjs'],
  ['the compiled server', 'dist/node/server.js'],
  ['the server from its sources (npm run dev)', 'src/server.ts'],
] as const) {
  t.test(
    `${name} refuses an older Node at once: one line, exit ${unsupportedNodeExitCode}, nothing started`,
    async (t) => {
      if (entry.startsWith('dist/') && !existsSync(path.join(projectRoot, entry)))
        return t.fail('no production build: `npm run build` first')
      const run = spawnSync(process.execPath, ['--import', olderNode, entry], {
        cwd: projectRoot,
        env: { ...process.env, PORT: '0', npm_lifecycle_event: '' },
        encoding: 'utf8',
        timeout: 30_000,
      })
      t.equal(run.status, unsupportedNodeExitCode, 'its exit code')
      t.equal(run.stdout, '', 'nothing on stdout: no build, no log line, no server')
      t.match(
        run.stderr,
        /^courier: Node\.js v20\.20\.2 is older than [\d.]+, the oldest Courier runs on: start it with Node \d+/,
      )
      t.equal(run.stderr.trim().split('\n').length, 1, 'one line')
    },
  )
}

t.test("on this machine's own older Node, if it has one: the same refusal", async (t) => {
  const systemNode = '/usr/bin/node'
  const version = existsSync(systemNode) ? spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : ''
  if (!version || isSupportedNode(version)) {
    t.comment(`no older Node at ${systemNode}: nothing to run`)
    return
  }
  const run = spawnSync(systemNode, ['dist/node/server.js'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0' },
    encoding: 'utf8',
    timeout: 30_000,
  })
  t.equal(run.status, unsupportedNodeExitCode)
  t.equal(run.stderr.trim().split('\n').length, 1, `one line (${run.stderr.trim()})`)
})

t.test('check-node prints the Node a suite runs on', async (t) => {
  const run = spawnSync(process.execPath, ['src/runtime/check-node.mjs'], { cwd: projectRoot, encoding: 'utf8' })
  t.equal(run.status, 0)
  t.equal(run.stdout, `courier: Node.js ${process.version} (${process.execPath})\n`)
})
