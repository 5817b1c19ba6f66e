/**
 * The floor for Courier's /status: a bare Fastify (no plugins, no hooks, no logger) that streams the same status
 * page with renderToPipeableStream (the same React tree from the built SSR entry, the same DocumentState, data of the
 * same shape, the same built index.html around it, handed to Fastify as a stream). What Courier spends above this is its
 * framework overhead: plugins, hooks, logging, @fastify/vite, error handling.
 *
 * Run by bench/run.ts as `node bench/bare-server.ts` with HOST, PORT (and DIST_DIR) in the environment.
 */
import Fastify from 'fastify'
import fastifyStatic from '@fastify/static'
import { readFile } from 'node:fs/promises'
import { documentStateElementId, type DocumentState } from '../src/common/document-state.ts'
import type { StatusData } from '../site/data-types.ts'
import { pageCacheControl } from '../src/pages/cache-control.ts'
import { loadSite } from '../src/pages/site.ts'
import { serializeForScript } from '../src/common/script-json.ts'
import { readPagePreloads } from '../src/render/page-preloads.ts'
import { identityPieces, PieceStream } from '../src/compression/pieces.ts'
import { renderUnderTimeOut, renderWhole } from '../src/render/stream.ts'
import { builtStylesheetReader } from '../src/render/built-stylesheet.ts'
import { compileTemplate } from '../src/render/template.ts'
import { serverLimits } from '../config/server.ts'
import { clientDir, documentFile, loadBuiltClient, readDeploymentId } from './build-output.ts'

/** The fields of Courier's status loaders (site/pages/status.server.ts), computed the same way, rendered whole per request. */
function loadStatusData(deploymentId: string): StatusData {
  const memory = process.memoryUsage()
  const figures = {
    serverTime: new Date().toISOString(),
    uptimeS: process.uptime(),
    memory: { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal },
  }
  return { kept: { deploymentId, nodeVersion: process.version }, live: { value: figures } }
}

async function main(): Promise<void> {
  const client = await loadBuiltClient()
  const { pages } = await loadSite(false)
  const page = pages.find((candidate) => candidate.path === '/status')
  if (!page) throw new Error('the page table has no page at /status')
  const deploymentId = await readDeploymentId()
  // Courier's own template and stream helpers: the floor differs from Courier only by what Fastify runs around them.
  const template = compileTemplate(await readFile(documentFile, 'utf8'), documentStateElementId, deploymentId, {
    inlineStylesheet: builtStylesheetReader(clientDir),
  })
  // The status page's head does not depend on its data: the opening HTML is the same for every request.
  const preloads = (await readPagePreloads(clientDir, [page.id], deploymentId))(page.id)
  const opening = template.open(
    { ...page.head({}, {}), preloadModules: preloads.modules, preloadStyles: preloads.styles },
    undefined,
  )

  const app = Fastify()

  // The floor of a cached image: @fastify/static with its defaults, serving the optimizer's bytes copied to a file.
  if (process.env.BENCH_STATIC_DIR) {
    await app.register(fastifyStatic, { root: process.env.BENCH_STATIC_DIR, prefix: '/static/' })
  }

  app.get('/api/health', async function reportHealth() {
    return { status: 'ok' }
  })

  app.get('/status', async function renderStatus(_request, reply) {
    const state: DocumentState = {
      type: 'page',
      pageId: page.id,
      kind: page.kind,
      params: {},
      data: loadStatusData(deploymentId),
      deploymentId,
    }
    const element = await client.createElement(state)
    const { body, finish } = await renderUnderTimeOut((hooks) => renderWhole(element, undefined, hooks), {
      timeoutMs: serverLimits.renderTimeoutMs,
      onError(error) {
        process.stderr.write(`bare-server: render error: ${(error as Error)?.stack ?? String(error)}\n`)
        return undefined
      },
    })
    const closing = () => (finish(), template.close(serializeForScript(state), undefined))
    const stream = new PieceStream({ coding: identityPieces, opening, closing })
    body.pipe(stream)
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('cache-control', pageCacheControl[page.kind])
      .send(stream)
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, function closeOnSignal() {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
  }

  await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) })
}

main().catch((error: unknown) => {
  process.stderr.write(`bare-server: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
