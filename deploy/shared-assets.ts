/**
 * The shared asset folder nginx serves `/_next/static/` from (the prefix's `assets/`, docs/running-at-scale.md
 * "nginx in front (`deploy/nginx/`)"): a folder per published deployment, `by-deployment/<id>/_next/static/chunks/`,
 * which nginx picks by the `?dpl=<id>` every asset URL carries, and a manifest per deployment, `deployments/<id>.json`,
 * whose times say which deployments are the last few kept. A name is not always its bytes: the hash in a chunk's name
 * is computed before the build stamps `?dpl=<id>` on its imports (src/build/deployment-id.ts), so two deployments may
 * give one name different bytes (a stylesheet naming the fonts, a chunk whose own code did not change, their `.br`,
 * `.gz`, `.zst` and deltas). Each deployment's folder holds its own bytes, so a deploy never changes a file an older
 * tab loads; a file with the same bytes as a kept deployment's is a hard link to it (no second copy on disk).
 */
import { chmod, link, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { stateModes } from './state-trust.ts'

/** Deployment ids as Courier makes and accepts them (config/env.ts DEPLOYMENT_ID), not starting with a dot: a folder
 * name (nginx's map in courier.conf takes the same). */
const deploymentIdPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/

export interface PublishedManifest {
  deploymentId: string
  publishedAt: string
  files: string[]
}

/** A deployment id published before with other bytes under one of its names: one id must name one build. */
export class AssetConflictError extends Error {
  override name = 'AssetConflictError'
}

/** Where nginx serves the chunks of deployment `id` from (`/_next/static/chunks/<name>?dpl=<id>`). */
export function publishedChunksDir(assetsDir: string, id: string): string {
  if (!deploymentIdPattern.test(id)) {
    throw new Error(
      `invalid deployment id ${JSON.stringify(id)} for the shared asset folder (1 to 64 of A-Z a-z 0-9 . _ -, ` +
        'the first not a dot)',
    )
  }
  return path.join(assetsDir, 'by-deployment', id, '_next', 'static', 'chunks')
}

async function namesIn(folder: string): Promise<string[]> {
  return readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw error
  })
}

/** The manifests of the published deployments, oldest first. */
export async function publishedManifests(assetsDir: string): Promise<PublishedManifest[]> {
  const manifestsDir = path.join(assetsDir, 'deployments')
  const manifests: PublishedManifest[] = []
  for (const name of await namesIn(manifestsDir)) {
    if (!name.endsWith('.json')) continue
    manifests.push(JSON.parse(await readFile(path.join(manifestsDir, name), 'utf8')) as PublishedManifest)
  }
  return manifests.sort((a, b) => a.publishedAt.localeCompare(b.publishedAt))
}

/**
 * Copies a build's assets (dist/client/chunks) into the folder of `deploymentId`, then writes its manifest: from then
 * on nginx serves them. A file already there with the same bytes (a deploy run again) is left; one with other bytes is
 * refused (AssetConflictError) before anything is written. Answers how many files the deployment has and how many of
 * them are hard links to another deployment's identical file.
 */
export async function publishAssets(
  distDir: string,
  assetsDir: string,
  deploymentId: string,
): Promise<{ files: number; linked: number }> {
  const target = publishedChunksDir(assetsDir, deploymentId)
  const source = path.join(distDir, 'client', 'chunks')
  const entries = await readdir(source, { withFileTypes: true })
  const files = entries.filter((entry) => entry.isFile()).map((entry) => entry.name)
  const present = new Set(await namesIn(target))
  const toWrite: string[] = []
  for (const name of files) {
    if (!present.has(name)) {
      toWrite.push(name)
    } else if (!(await readFile(path.join(source, name))).equals(await readFile(path.join(target, name)))) {
      throw new AssetConflictError(
        `deployment ${deploymentId} was published before with other bytes for ${name} (${target}): a deployment id ` +
          'names one build, and a tab of it may hold the first bytes; build with another DEPLOYMENT_ID',
      )
    }
  }
  const others = (await publishedManifests(assetsDir)).filter((one) => one.deploymentId !== deploymentId)
  await mkdir(target, { recursive: true })
  await mkdir(path.join(assetsDir, 'deployments'), { recursive: true })
  // nginx's workers may be another user (deploy/state-trust.ts): the deploy's umask would keep them out.
  for (let folder = target; folder.startsWith(`${assetsDir}${path.sep}`); folder = path.dirname(folder)) {
    await chmod(folder, stateModes.servedFolder)
  }
  let linked = 0
  for (const name of toWrite) {
    const bytes = await readFile(path.join(source, name))
    const temporary = path.join(target, `.${name}.tmp`)
    await rm(temporary, { force: true })
    let same: string | undefined
    for (const other of others.filter((one) => one.files.includes(name))) {
      const candidate = path.join(publishedChunksDir(assetsDir, other.deploymentId), name)
      if ((await readFile(candidate).catch(() => undefined))?.equals(bytes)) {
        same = candidate
        break
      }
    }
    // Never written in place: a file is written under a temporary name and renamed (nginx never serves half a file),
    // so a hard link shares bytes that no later deploy changes.
    if (same) {
      await link(same, temporary)
      linked += 1
    } else {
      await writeFile(temporary, bytes)
      await chmod(temporary, stateModes.servedFile)
    }
    await rename(temporary, path.join(target, name))
  }
  const manifest: PublishedManifest = { deploymentId, publishedAt: new Date().toISOString(), files }
  await writeFile(path.join(assetsDir, 'deployments', `${deploymentId}.json`), JSON.stringify(manifest, null, 2))
  return { files: files.length, linked }
}

/**
 * The chunk folders of the `count` most recently published deployments: the chunks a returning visitor may hold,
 * which a new deployment's chunks are delta-coded against (src/build/dictionary-deltas.ts).
 */
export async function retainedChunkFolders(assetsDir: string, count: number): Promise<string[]> {
  const manifests = await publishedManifests(assetsDir)
  return manifests
    .slice(Math.max(0, manifests.length - count))
    .map((manifest) => publishedChunksDir(assetsDir, manifest.deploymentId))
}

/**
 * Keeps the assets of the `keep` most recently published deployments (and of any in `alsoKeep`, e.g. one still
 * live); removes the folders of the others (and of a deployment whose publish was undone: it has no manifest) and
 * the flat `_next/` of states published before the folders were per deployment. Returns the deployments dropped.
 */
export async function pruneAssets(assetsDir: string, keep: number, alsoKeep: string[] = []): Promise<string[]> {
  const manifests = await publishedManifests(assetsDir)
  const kept = manifests.filter(
    (manifest, index) => index >= manifests.length - keep || alsoKeep.includes(manifest.deploymentId),
  )
  const keptIds = new Set(kept.map((manifest) => manifest.deploymentId))
  const dropped = manifests.filter((manifest) => !keptIds.has(manifest.deploymentId))
  for (const id of await namesIn(path.join(assetsDir, 'by-deployment'))) {
    if (!keptIds.has(id)) await rm(path.join(assetsDir, 'by-deployment', id), { recursive: true, force: true })
  }
  await rm(path.join(assetsDir, '_next'), { recursive: true, force: true })
  for (const manifest of dropped) {
    await rm(path.join(assetsDir, 'deployments', `${manifest.deploymentId}.json`), { force: true })
  }
  return dropped.map((manifest) => manifest.deploymentId)
}
