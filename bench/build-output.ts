/**
 * What the bench reads from the production build, found the way the server finds it: @fastify/vite's
 * vite.config.json names the SSR entry, which loads as `<its base name>.js` (or `.mjs`) from the server folder.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { deploymentManifestName, type DeploymentManifest } from '../src/build/deployment-id.ts'
import type { SsrModule } from '../src/render/vite-client.ts'
import { buildState } from '../src/build/ensure-build.mjs'
import { distDir, projectRoot } from './config.ts'

export const clientDir = path.join(distDir, 'client')
/** The compiled server (`npm run build`), which the bench starts as `npm start` does. */
export const serverEntryFile = path.join(distDir, 'node', 'server.js')
export const documentFile = path.join(clientDir, 'index.html')
export const manifestFile = path.join(clientDir, '.vite', 'manifest.json')
const deploymentFile = path.join(distDir, deploymentManifestName)
const viteConfigFile = path.join(distDir, 'vite.config.json')

interface CachedViteConfig {
  fastify?: { entryPaths?: { ssr?: string } }
}

export class BuildOutputError extends Error {
  override name = 'BuildOutputError'
}

/** The built SSR entry, or undefined when the build has none. */
export async function findSsrEntry(): Promise<string | undefined> {
  if (!existsSync(viteConfigFile)) return undefined
  const viteConfig = JSON.parse(await readFile(viteConfigFile, 'utf8')) as CachedViteConfig
  const entry = viteConfig.fastify?.entryPaths?.ssr
  if (!entry) return undefined
  const name = path.parse(entry).name
  return [`${name}.js`, `${name}.mjs`]
    .map((file) => path.join(distDir, 'server', file))
    .find((file) => existsSync(file))
}

/**
 * Whether dist/ holds everything a server run reads, built from the sources checked out (the check `npm start` makes,
 * src/build/ensure-build.mjs): a bench of another build's server would measure other code.
 */
export async function hasBuild(): Promise<boolean> {
  if (buildState(projectRoot, distDir).state !== 'fresh') return false
  return [deploymentFile, documentFile, manifestFile].every((file) => existsSync(file)) && !!(await findSsrEntry())
}

/** The built SSR entry's exports: the page table and createElement, exactly as the server gets them. */
export async function loadBuiltClient(): Promise<SsrModule> {
  const entry = await findSsrEntry()
  if (!entry) throw new BuildOutputError(`no SSR entry in ${distDir} (named by ${viteConfigFile})`)
  return (await import(pathToFileURL(entry).href)) as SsrModule
}

/** The deployment id of the build in `dir` (default: this checkout's dist/; the A/B mode reads another's). */
export async function readDeploymentId(dir = distDir): Promise<string> {
  const file = path.join(dir, deploymentManifestName)
  const manifest = JSON.parse(await readFile(file, 'utf8')) as DeploymentManifest
  if (!manifest.deploymentId) throw new BuildOutputError(`${file} names no deployment id`)
  return manifest.deploymentId
}
