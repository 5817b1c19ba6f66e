import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../config/env.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { isPerUser, loadSite } from '../src/pages/site.ts'

const root = loadConfig({}).rootDir

/** `npm start` as package.json spells it: what users run, the compiled server in dist/node/ on Node with no loader. */
const startCommand = () => readStartCommand(root)

/**
 * Spawns Node as npm start does. tap puts its own loader into every child's NODE_OPTIONS (whatever env the spawn is
 * given), so `env -u NODE_OPTIONS` clears it in between: the server gets npm start's arguments and nothing else.
 */
function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** The test build's compiled server (`npm run build:test`), started the same way. */
function testBuildEntry(entry: string): string {
  return path.join(root, 'dist-test', path.relative(path.join(root, 'dist'), entry))
}

interface Started {
  child: ChildProcess
  port: number
  output: () => string
}

/** Spawns a server without the test runner's own preloads (NODE_OPTIONS) and resolves once it listens. */
async function startServer(t: Test, options: { entry?: string; env?: Record<string, string> } = {}): Promise<Started> {
  const command = await startCommand()
  const child = spawnNode([...command.nodeArgs, options.entry ?? command.entry], {
    ...process.env,
    ...command.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...options.env,
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    child.stdout!.on('data', () => {
      const match = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    child.once('exit', () => reject(new Error(`server exited:\n${output}`)))
  })
  return { child, port, output: () => output }
}

/** Runs a server that must stop during start-up, and resolves with its exit code and output. */
async function failedStart(
  entry: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const command = await startCommand()
  const child = spawnNode([...command.nodeArgs, entry], {
    ...process.env,
    ...command.env,
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, output }
}

function get(port: number, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}${pathname}`, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on('error', reject)
  })
}

t.test('npm start runs the compiled JavaScript: no TypeScript module, no loader hook, no compiler', async (t) => {
  const command = await startCommand()
  t.match(path.relative(root, command.entry), /^dist[\\/]node[\\/]server\.js$/, 'the entry is the compiled server')
  const coverageDir = await mkdtemp(path.join(tmpdir(), 'courier-modules-'))
  t.teardown(() => rm(coverageDir, { recursive: true, force: true }))
  // V8 coverage lists every script the process compiled, by URL, for every thread: Node writes it at exit. It is
  // switched on by the environment, so Node's arguments stay exactly npm start's.
  const { child, port } = await startServer(t, { env: { NODE_V8_COVERAGE: coverageDir } })
  t.equal((await get(port, '/')).status, 200, 'serves /')
  // A page rendered per request: the site's first dynamic page that is not per-user (from its page table), else its
  // 404 page.
  const dynamic = (await loadSite(false)).pages.find(
    (page) => page.kind === 'dynamic' && !page.path.includes(':') && !isPerUser(page),
  )
  const rendered = await get(port, dynamic?.path ?? '/no-such-page')
  t.equal(rendered.status, dynamic ? 200 : 404, `serves ${dynamic?.path ?? 'the 404 page'} (a streamed render)`)
  const commandLine = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean)
  t.same(commandLine.slice(1), [...command.nodeArgs, command.entry], "Node's arguments are npm start's, nothing more")
  t.notOk(
    commandLine.some((arg) => /^--(import|require|loader|experimental-loader)$|^-r$/.test(arg)),
    'no preload',
  )
  child.kill('SIGTERM')
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(code, 0)

  const reports = await readdir(coverageDir)
  const urls: string[] = []
  const mainThread: string[] = []
  const otherThreads: string[][] = []
  for (const name of reports) {
    const report = JSON.parse(await readFile(path.join(coverageDir, name), 'utf8')) as {
      result: Array<{ url: string }>
    }
    const scripts = report.result.map((script) => script.url)
    urls.push(...scripts)
    if (/^coverage-\d+-\d+-(\d+)\.json$/.exec(name)?.[1] !== '0') otherThreads.push(scripts)
    else mainThread.push(...scripts)
  }
  t.equal(reports.length - otherThreads.length, 1, 'one main thread')
  // Courier's own threads (the content index's reads, the Markdown parser) start from chunks of the build; a hooks
  // thread (a loader registered through module.register) would start from none.
  const ownThread = /[\\/]chunks[\\/](index-read-worker|markdown-worker)-[\w-]+\.js$/
  t.same(
    otherThreads.filter((scripts) => !scripts.some((url) => ownThread.test(url))),
    [],
    "every other thread is one of Courier's own: no hooks thread",
  )
  t.same(
    mainThread.filter((url) => ownThread.test(url)),
    [],
    "the main thread loads none of the threads' modules (the Markdown parser stays on its thread)",
  )
  const files = urls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url))
  t.ok(files.includes(command.entry), 'the list holds the compiled entry (so it is the list of what ran)')
  // React stays a package of its own (the SSR entry imports it too); the other dependencies are in the bundle.
  t.ok(
    files.some((file) => file.includes(`${path.sep}node_modules${path.sep}react-dom${path.sep}`)),
    'and packages',
  )
  t.same(
    files.filter((file) => /\.[cm]?tsx?$/.test(file)),
    [],
    'no TypeScript file was loaded',
  )
  const compilers = /[\\/]node_modules[\\/](tsx|esbuild|ts-node|typescript\d*|@swc|rolldown|vite)[\\/]/
  t.same(
    files.filter((file) => compilers.test(file)),
    [],
    'no compiler or loader package was loaded',
  )
  t.notOk(
    urls.some((url) => url.includes('internal/modules/esm/hooks')),
    "Node's loader-hooks machinery never ran",
  )
})

t.test(
  "Node's own modules load from the code cache Node ships with: no V8 flag of npm start's refuses it",
  async (t) => {
    // Node reports each built-in module's code cache as accepted or rejected (NODE_DEBUG_NATIVE=CODE_CACHE); a V8 flag
    // that changes V8's flag hash, on the command line or set before the modules load, has it rejected, and every
    // built-in module compiled from its source (config/start-up.ts flagsOnceLoaded).
    const { child, port, output } = await startServer(t, { env: { NODE_DEBUG_NATIVE: 'CODE_CACHE' } })
    t.equal((await get(port, '/')).status, 200, 'serves /')
    child.kill('SIGTERM')
    await once(child, 'exit')
    t.ok(/ is accepted$/m.test(output()), 'Node reports its code cache')
    t.same(
      output()
        .split('\n')
        .filter((line) => line.endsWith(' is rejected')),
      [],
      'no built-in module compiled without it',
    )
  },
)

t.test('SIGTERM: the request in flight finishes, then the process exits 0', async (t) => {
  const command = await startCommand()
  const { child, port, output } = await startServer(t, {
    entry: testBuildEntry(command.entry),
    env: { COURIER_TEST_ROUTES: 'true' },
  })
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/__test/slow?delay=1000`, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
          // The render is under way: now ask the process to stop.
          if (child.exitCode === null && !child.killed) child.kill('SIGTERM')
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on('error', reject)
  })
  const { status, body } = await response
  const [code] = (await once(child, 'exit')) as [number | null]
  t.equal(status, 200)
  t.match(body, 'Resolved after', 'the streamed page was completed')
  t.match(body, /<\/html>\s*$/)
  t.equal(code, 0, 'clean exit')
  t.match(output(), '"msg":"closing: finishing in-flight requests"')
})

t.test(
  'SOCKET_PATH: it listens on the Unix socket alone; a second server there is refused; SIGTERM removes it',
  async (t) => {
    const folder = await mkdtemp(path.join(tmpdir(), 'courier-socket-'))
    t.teardown(() => rm(folder, { recursive: true, force: true }))
    const socketPath = path.join(folder, 'site.sock')
    const command = await startCommand()
    const child = spawnNode([...command.nodeArgs, command.entry], {
      ...process.env,
      ...command.env,
      SOCKET_PATH: socketPath,
    })
    t.teardown(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    })
    let output = ''
    child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
      child.stdout!.on('data', () => {
        if (!output.includes(`"msg":"Server listening at ${socketPath}"`)) return
        clearTimeout(timer)
        resolve()
      })
    })
    const health = await new Promise<number>((resolve, reject) => {
      http.get({ socketPath, path: '/api/health' }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject)
    })
    t.equal(health, 200, 'answers on the socket')
    t.notMatch(output, /Server listening at http/, 'and on no TCP port')

    const second = await failedStart(command.entry, { SOCKET_PATH: socketPath })
    t.equal(second.code, 1, 'a second server on the same socket stops')
    t.match(second.output, `SOCKET_PATH ${socketPath}: another server accepts connections there`)

    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    t.equal(code, 0)
    t.notOk(await stat(socketPath).catch(() => undefined), 'the socket file is gone after a clean exit')
  },
)

t.test('a bad environment stops start-up with a message naming the variable', async (t) => {
  const { entry } = await startCommand()
  const { code, output } = await failedStart(entry, { PORT: 'eighty' })
  t.equal(code, 78)
  t.match(output, 'courier: invalid environment: PORT must be an integer from 0 to 65535 (got "eighty")')
})

t.test(
  "the production build's server holds no test page: COURIER_TEST_ROUTES stops it with a coded error",
  async (t) => {
    const { entry } = await startCommand()
    const { code, output } = await failedStart(entry, { COURIER_TEST_ROUTES: 'true' })
    t.equal(code, 1)
    t.match(output, '"code":"COURIER_ERR_TEST_ROUTES_UNAVAILABLE"')
    t.match(output, '"msg":"start-up failed"')
  },
)

t.test('a compiled server never serves another build: beside the test build it stops with a coded error', async (t) => {
  const { entry } = await startCommand()
  const { code, output } = await failedStart(entry, { DIST_DIR: 'dist-test' })
  t.equal(code, 1)
  t.match(output, '"code":"COURIER_ERR_BUILD_MISMATCH"')
})
