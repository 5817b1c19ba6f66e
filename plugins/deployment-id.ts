import fp from 'fastify-plugin'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { deploymentManifestName, type DeploymentManifest } from '../src/build/deployment-id.ts'
import { errors } from '../src/errors.ts'

export interface DeploymentIdOptions {
  distDir: string
  dev: boolean
  /** The operator's DEPLOYMENT_ID, if any: must equal the build's. */
  expected: string | undefined
  /**
   * The compiled server's own deployment id (src/build/build-stamp.ts), none when run from the sources: the client
   * build at `distDir` must be the one made with it, so a server never renders another build's pages and chunks.
   */
  builtFor?: string | undefined
}

/** The dev server has no build: its id says so, and changes nothing else. */
const developmentId = 'development'

async function readBuildId(distDir: string): Promise<string> {
  const file = path.join(distDir, deploymentManifestName)
  try {
    const manifest = JSON.parse(await readFile(file, 'utf8')) as DeploymentManifest
    if (typeof manifest.deploymentId === 'string' && manifest.deploymentId) return manifest.deploymentId
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  throw new errors.BuildMissing(distDir)
}

/** Decorates `fastify.deploymentId`: the build's id, read once at start-up (docs/rendering.md "Deployment id"). */
async function deploymentId(fastify: FastifyInstance, options: DeploymentIdOptions) {
  const { distDir, dev, expected, builtFor } = options
  const id = dev ? (expected ?? developmentId) : await readBuildId(distDir)
  if (!dev && builtFor !== undefined && builtFor !== id) throw new errors.BuildMismatch(builtFor, distDir, id)
  if (!dev && expected && expected !== id) throw new errors.DeploymentMismatch(expected, id)
  fastify.decorate('deploymentId', id)
  fastify.log.info({ deploymentId: id }, 'deployment')
}

declare module 'fastify' {
  interface FastifyInstance {
    /** One id per build: on `<html data-dpl-id>`, as `?dpl=` on asset URLs, in page-data URLs and headers. */
    deploymentId: string
  }
}

export default fp(deploymentId, { name: 'courier-deployment-id', fastify: '5.x' })
