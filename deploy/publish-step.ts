/** The `publish` step of a deploy: the release's chunks fetchable through nginx, with their dictionary deltas. */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { dictionaryFilesIn, writeDeltas } from '../src/build/dictionary-deltas.ts'
import type { DeployRun } from './deploy-run.ts'
import { publishAssets, retainedChunkNames } from './nginx-prefix.ts'
import type { Release } from './release.ts'

/**
 * Deltas of the release's chunks against those of the deployments kept with it (docs/running-at-scale.md
 * "Dictionaries after a deploy"), then its assets into nginx's shared folder: from now on its chunks are fetchable.
 * Undone by removing its manifest (its files go at the next prune). Answers the shared folder.
 */
export async function publishRelease(run: DeployRun, release: Release): Promise<string> {
  const { paths, options, log } = run
  await run.step('publish', { deploymentId: release.id })
  const assetsDir = path.join(paths.nginx, 'assets')
  const retained = await retainedChunkNames(assetsDir, options.keep - 1)
  const dictionaryFiles = await dictionaryFilesIn(path.join(assetsDir, '_next', 'static', 'chunks'), retained)
  const deltas = await writeDeltas(path.join(release.distDir, 'client', 'chunks'), dictionaryFiles)
  const { notSmaller, tooLarge } = deltas
  log('dictionary deltas written', { deploymentId: release.id, deltas: deltas.written.length, notSmaller, tooLarge })
  const manifest = path.join(assetsDir, 'deployments', `${release.id}.json`)
  run.undos.push({ what: 'unpublish', run: () => rm(manifest, { force: true }) })
  const replaced: string[] = []
  const published = await publishAssets(release.distDir, assetsDir, release.id, replaced)
  log('assets published', { deploymentId: release.id, files: published, replaced })
  return assetsDir
}
