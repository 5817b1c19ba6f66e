import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { renderToPipeableStream } from 'react-dom/server'

const require = createRequire(import.meta.url)

/** Where React keeps its streaming server renderer for Node, in the build `react-dom/server` itself picks. */
export function streamingRendererFile(nodeEnv = process.env.NODE_ENV): string {
  const flavour = nodeEnv === 'production' ? 'production' : 'development'
  return path.join(path.dirname(require.resolve('react-dom/package.json')), 'cjs', `react-dom-server.node.${flavour}.js`)
}

/**
 * React's `renderToPipeableStream`, loaded alone. `react-dom/server` on Node loads React's two server renderers, the
 * streaming one and the legacy one behind `renderToString`, which Courier never calls: the legacy one is about half
 * of what loading react-dom costs a start (docs/runtime.md "Cold start"). Should a React release keep it elsewhere,
 * `react-dom/server` is loaded whole, as before.
 */
export function loadStreamingRenderer(): typeof renderToPipeableStream {
  const file = streamingRendererFile()
  const server = (existsSync(file) ? require(file) : require('react-dom/server')) as { renderToPipeableStream: typeof renderToPipeableStream }
  return server.renderToPipeableStream
}
