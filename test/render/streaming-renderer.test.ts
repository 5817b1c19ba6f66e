/**
 * src/render/streaming-renderer.ts: React's streaming server renderer is loaded without the legacy one, and it is the
 * very function `react-dom/server` exports.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { loadStreamingRenderer, streamingRendererFile } from '../../src/render/streaming-renderer.ts'

const root = path.resolve(import.meta.dirname, '../..')
const require = createRequire(import.meta.url)

t.test('the file is where react-dom/server takes it from, in both builds of React', async (t) => {
  for (const nodeEnv of ['production', 'development']) {
    const file = streamingRendererFile(nodeEnv)
    t.ok(existsSync(file), `${path.relative(root, file)} exists`)
    t.match(path.basename(file), nodeEnv === 'production' ? /\.production\.js$/ : /\.development\.js$/)
  }
})

t.test('renderToPipeableStream is the one react-dom/server exports', async (t) => {
  const renderer = loadStreamingRenderer()
  t.equal(typeof renderer, 'function')
  const whole = require('react-dom/server') as { renderToPipeableStream: unknown }
  t.equal(renderer, whole.renderToPipeableStream, 'the same module, so the same React')
})

t.test('the legacy renderer (renderToString) is never loaded', async (t) => {
  const script = [
    "import { createRequire } from 'node:module'",
    `const { loadStreamingRenderer } = await import(${JSON.stringify(path.join(root, 'src/render/streaming-renderer.ts'))})`,
    "if (typeof loadStreamingRenderer() !== 'function') throw new Error('no renderer')",
    'const loaded = Object.keys(createRequire(import.meta.url).cache)',
    'process.stdout.write(JSON.stringify(loaded))',
  ].join('\n')
  const loaded = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env: { ...process.env, NODE_ENV: 'production' }, encoding: 'utf8' }),
  ) as string[]
  t.ok(loaded.some((file) => file.endsWith('react-dom-server.node.production.js')), 'the streaming renderer is loaded')
  t.notOk(loaded.some((file) => file.includes('react-dom-server-legacy')), 'the legacy one is not')
})
