import fp from 'fastify-plugin'
import path from 'node:path'
import fastifyVite from '@fastify/vite'
import type { FastifyInstance } from 'fastify'
import { clientBundle } from '../config/client-bundle.ts'
import { errors } from '../src/errors.ts'
import { builtAssetOptions, codedAssetHandler } from '../src/delivery/built-assets.ts'
import { findDictionaryDeltas } from '../src/delivery/dictionary-assets.ts'
import { createDocumentResponder, type RenderDocument } from '../src/delivery/respond.ts'
import type { Sender } from '../src/delivery/send.ts'
import { findCodedAssets } from '../src/delivery/coded-assets.ts'
import { builtStylesheetReader } from '../src/render/built-stylesheet.ts'
import { readPagePreloads } from '../src/render/page-preloads.ts'
import { createDocumentRenderer } from '../src/render/renderer.ts'
import type { HoleTurnLimits } from '../src/render/hole-turns.ts'
import { assetBase } from '../src/render/template.ts'
import { viteDocumentSource } from '../src/render/vite-client.ts'
import { tracingOf } from '../src/tracing/tracing.ts'

export interface DocumentsOptions {
  /** Project root: holds vite.config.ts and package.json. */
  root: string
  /** Build output (production): holds vite.config.json, client/, server/. */
  distDir: string
  /** Serve through Vite's dev server (HMR) instead of the build. */
  dev: boolean
  /** The ids of every page served: each needs its code chunk in the build (and gets its chunks preloaded). */
  pageIds: readonly string[]
  renderTimeoutMs: number
  /** How partly prerendered documents resume their holes in turns with new requests (src/render/hole-turns.ts). */
  holeTurns: HoleTurnLimits
  /** Keep documents rendered once (static pages, error pages without a digest); never in development. */
  keepDocuments: boolean
  /** How documents go on the wire (src/delivery/send.ts): the one `buildApp` makes. */
  sender: Sender
}

/**
 * Deltas of the chunks against older deployments' (src/delivery/dictionary-assets.ts) and the built files'
 * precompressed codings (src/delivery/coded-assets.ts), which the sender sends before @fastify/static: a preHandler of
 * the asset routes alone (a page request never runs it), put on each as @fastify/vite adds it.
 */
function hookCodedAssets(fastify: FastifyInstance, clientDir: string, sender: Sender): void {
  const dictionaryDeltas = findDictionaryDeltas(clientDir, fastify.log)
  const codedAssets = findCodedAssets(clientDir)
  if (dictionaryDeltas.size === 0 && codedAssets.size === 0) return
  const sendCodedAsset = codedAssetHandler(sender, codedAssets, dictionaryDeltas)
  fastify.addHook('onRoute', function hookCodedAssets(route) {
    if (!route.url.startsWith(assetBase)) return
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat()
    route.preHandler = [...own, sendCodedAsset]
  })
}

/**
 * Documents: @fastify/vite brings the client in (the build in production, Vite's dev server with HMR in development)
 * and serves the built assets under `/_next/static/` (their codings the sender's, src/delivery/built-assets.ts);
 * Courier takes the template and the SSR module from it and renders every document, a page (whole, or resumed from
 * its kept shell where it is partly prerendered) or an error page, through `fastify.renderDocument`
 * (src/delivery/respond.ts: the renderer of src/render/renderer.ts, its span and metrics, and the sender of
 * src/delivery/send.ts).
 */
async function documents(fastify: FastifyInstance, options: DocumentsOptions) {
  const { root, distDir, dev, pageIds, renderTimeoutMs, holeTurns, keepDocuments, sender } = options
  if (!Number.isInteger(renderTimeoutMs) || renderTimeoutMs <= 0) {
    throw new errors.OptionInvalid('renderTimeoutMs', 'a whole number of milliseconds above 0')
  }
  // Decorated by courier-deployment-id before this plugin registers, and fixed for the life of the process.
  const deploymentId = fastify.deploymentId
  const clientDir = path.join(distDir, 'client')
  const preloadsFor = dev ? undefined : await readPagePreloads(clientDir, pageIds, deploymentId)
  // The build's stylesheet goes into each document, and its entry starts after the first paint; the dev server's CSS
  // comes through its own modules, and its client must run at once.
  const { renderer: viteRenderer, source } = viteDocumentSource(deploymentId, {
    inlineStylesheet: dev ? undefined : builtStylesheetReader(clientDir),
    startEntryAfterFirstPaint: dev ? undefined : { fallbackMs: clientBundle.entryStartFallbackMs },
  })

  if (!dev) hookCodedAssets(fastify, clientDir, sender)

  await fastify.register(fastifyVite, {
    root,
    dev,
    // @fastify/vite looks for vite.config.json beside the client folder it is given.
    distDir: clientDir,
    fastifyStaticOptions: builtAssetOptions(distDir, sender),
    renderer: viteRenderer,
  })
  await fastify.vite.ready()

  // Documents are kept (static pages, error pages, partly prerendered pages' shells) except in development.
  const keep = keepDocuments && !dev
  const renderer = createDocumentRenderer({
    source,
    deploymentId,
    renderTimeoutMs,
    holeTurns,
    keepShells: keep,
    preloadsFor,
  })
  const tracing = tracingOf(fastify)
  const metrics = fastify.metrics
  fastify.decorate(
    'renderDocument',
    createDocumentResponder({ renderer, sender, keepDocuments: keep, tracing, metrics }),
  )
  fastify.log.debug({ dev, assetBase }, 'documents ready')
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Renders a document (a page rendered whole, a partly prerendered page, or the error page for a status) for this
     * request and sends it: streamed, or its kept bytes with the request's nonce. Routes and the error handler answer
     * through it; it needs no route.
     */
    renderDocument: RenderDocument
  }
}

export default fp(documents, { name: 'courier-documents', fastify: '5.x', dependencies: ['courier-deployment-id'] })
