/** The `publish` step of a deploy: the release's chunks fetchable through nginx, with their dictionary deltas. */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { dictionaryFilesIn, writeDeltas } from '../src/build/dictionary-deltas.ts'
import type { DeployRun } from './deploy-run.ts'
import type { Release } from './release.ts'
import { publishAssets, retainedChunkFolders } from './shared-assets.ts'

/**
 * Deltas of the release's chunks against those of the deployments kept with it, each deployment's own bytes
 * (docs/running-at-scale.md "Dictionaries after a deploy"), then its assets into its folder of nginx's shared folder
 * (deploy/shared-assets.ts): from now on its chunks are fetchable. Undone by removing its manifest (its folder goes at
 * the next prune). Answers the shared folder.
 */
export async function publishRelease(run: DeployRun, release: Release): Promise<string> {
  const { paths, options, log } = run
  await run.step('publish', { deploymentId: release.id })
  const assetsDir = path.join(paths.nginx, 'assets')
  const retained = await retainedChunkFolders(assetsDir, options.keep - 1)
  const dictionaryFiles = (await Promise.all(retained.map((folder) => dictionaryFilesIn(folder)))).flat()
  const deltas = await writeDeltas(path.join(release.distDir, 'client', 'chunks'), dictionaryFiles)
  const { notSmaller, tooLarge } = deltas
  log('dictionary deltas written', { deploymentId: release.id, deltas: deltas.written.length, notSmaller, tooLarge })
  const manifest = path.join(assetsDir, 'deployments', `${release.id}.json`)
  run.undos.push({ what: 'unpublish', run: () => rm(manifest, { force: true }) })
  const { files, linked } = await publishAssets(release.distDir, assetsDir, release.id)
  log('assets published', { deploymentId: release.id, files, linkedToKept: linked })
  return assetsDir
}
