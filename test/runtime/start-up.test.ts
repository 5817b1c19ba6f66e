import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { readStartCommand } from '../../src/build/start-command.ts'
import { enableCompileCache } from '../../src/runtime/start-up.ts'
import { startUp } from '../../config/start-up.ts'

const projectRoot = path.resolve(import.meta.dirname, '..', '..')
const nodeDir = path.join(projectRoot, 'dist', 'node')

/** Every .js file of the compiled server. */
function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === startUp.compileCacheFolder ? [] : bundleFiles(file)
    return entry.name.endsWith('.js') ? [file] : []
  })
}

/**
 * Starts the compiled server as `npm start` does (without tap's NODE_OPTIONS), waits for it to listen and answer `/`,
 * then stops it with SIGTERM; resolves its whole output.
 */
async function startOnce(
  env: Record<string, string> = {},
  extraNodeArgs: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const command = await readStartCommand(projectRoot)
  const child = spawn(
    'env',
    ['-u', 'NODE_OPTIONS', process.execPath, ...command.nodeArgs, ...extraNodeArgs, command.entry],
    {
      cwd: projectRoot,
      env: { ...process.env, ...command.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 60_000
  let port: number | undefined
  while (port === undefined && Date.now() < deadline && child.exitCode === null) {
    port = Number(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)?.[1]) || undefined
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  if (port !== undefined) await fetch(`http://127.0.0.1:${port}/`).then((response) => response.arrayBuffer())
  child.kill('SIGTERM')
  return { code: await exited, output }
}

t.test('a start writes the compile cache beside the compiled server, and the next start uses it', async (t) => {
  const first = await startOnce()
  t.equal(first.code, 0, 'first start: served and closed')
  const cacheDir = path.join(nodeDir, startUp.compileCacheFolder)
  t.ok(existsSync(cacheDir), `${path.relative(projectRoot, cacheDir)} exists`)
  const entries = readdirSync(cacheDir, { recursive: true })
  t.ok(entries.length > 5, `it holds entries (${entries.length})`)
  // Node's own trace of the cache (NODE_DEBUG_NATIVE=COMPILE_CACHE) says which module's compiled code it accepted.
  const second = await startOnce({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' })
  t.equal(second.code, 0, 'second start: served and closed')
  t.match(
    second.output,
    /V8 code cache for ESM file:\/\/\S+\/dist\/node\/chunks\/main-[\w-]+\.js was accepted/,
    "the server's main chunk came from the cache",
  )
  t.match(
    second.output,
    /react-dom-server\.node\.production\.js was accepted|react-dom\S+ was accepted/,
    "and React's server renderer",
  )
})

t.test(
  "a start that served / has not loaded Node's undici (node:http is taken without its ES namespace)",
  async (t) => {
    // Preloaded: at exit, the list of Node's own modules the process loaded.
    const report =
      "process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'))"
    const { code, output } = await startOnce({}, [`--import=data:text/javascript,${encodeURIComponent(report)}`])
    t.equal(code, 0)
    const loaded = JSON.parse(/^LOADED (.*)$/m.exec(output)?.[1] ?? '[]') as string[]
    t.ok(loaded.includes('NativeModule http'), 'the list is read (it has node:http)')
    t.same(
      loaded.filter((name) => name.includes('undici')),
      [],
      'no module of undici',
    )
  },
)

t.test(
  'the compiled server holds no character beyond Latin-1 (one makes V8 hold a chunk as two bytes per character)',
  async (t) => {
    for (const file of bundleFiles(nodeDir)) {
      // Rolldown's `charset: 'ascii'` escapes strings, templates and names; a license comment is kept as written.
      const wide = /[^\0-\xff]/u.exec(readFileSync(file, 'utf8'))
      t.equal(wide?.[0], undefined, path.relative(projectRoot, file))
    }
  },
)

t.test(
  'stack traces of the compiled server name the TypeScript sources (source maps on without the flag)',
  async (t) => {
    const { code, output } = await startOnce({ COURIER_TEST_ROUTES: 'true' })
    t.equal(code, 1, 'the production build refuses the test routes')
    t.match(output, /at loadPageSources \(\S+\/src\/pages\/page-sources\.ts:\d+:\d+\)/)
    t.match(output, /at buildApp \(\S+\/src\/app\.ts:\d+:\d+\)/)
  },
)

t.test('the server run from its sources writes no cache into the source tree', async (t) => {
  t.same(enableCompileCache(new URL('../../src/server.ts', import.meta.url).href), { status: 'sources' })
})
