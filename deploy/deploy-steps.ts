/**
 * A rolling deploy, step by step (docs/running-at-scale.md "Rolling deploy"): build, publish, start, ready, route,
 * grace, drain, prune. Each step that changes something pushes its undo; an interruption (SIGINT, SIGTERM: `signal`)
 * before the drain step runs the undos in reverse, so the live site, its processes and state.json are as they were
 * and the same deploy can run again. From the drain step on, the new deployment is the live one: an interruption
 * still stops the old instances (no orphan), and the next deploy prunes what this one did not.
 *
 * The steps, each in its own file: what a deploy checks first (deploy/before-deploy.ts), `publish`
 * (deploy/publish-step.ts), `start` and `ready` (deploy/start-steps.ts), `route`, `grace` and `drain`
 * (deploy/switch-steps.ts); `build` and `prune` are here.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { prepareState } from './before-deploy.ts'
import type { DeployOptions, DeployRun, DeployStep, Undo } from './deploy-run.ts'
import { checkKeyPair, readEnvFile } from './instance-env.ts'
import type { Log } from './instances.ts'
import { applyRouting, portOf } from './nginx-control.ts'
import { publishRelease } from './publish-step.ts'
import { buildRelease, takeDist, type Release } from './release.ts'
import { pruneAssets } from './shared-assets.ts'
import { startRelease } from './start-steps.ts'
import { readState, withLock, writeJsonAtomically, type StatePaths } from './state.ts'
import { switchTo } from './switch-steps.ts'

/** For the tests that interrupt each step: the deploy waits before this step until it is interrupted. */
const holdBefore = process.env.COURIER_DEPLOY_HOLD_BEFORE

export async function deploy(paths: StatePaths, options: DeployOptions, signal: AbortSignal, log: Log): Promise<void> {
  const { frontDoor } = options
  if (frontDoor.tls) await checkKeyPair(frontDoor.tls)
  // Refused here, before the build, if another user could change or read it (the start step reads it again).
  await readEnvFile(paths.envFile)
  // One deploy per state at a time; a second one is refused at once, naming the first.
  await withLock(paths, 'deploy', 0, async () => {
    await prepareState(paths, frontDoor, log)
    const undos: Undo[] = []
    const step = async (name: DeployStep, fields: Record<string, unknown> = {}) => {
      signal.throwIfAborted()
      if (holdBefore === name) {
        log('holding before step (COURIER_DEPLOY_HOLD_BEFORE)', { step: name })
        await sleep(2 ** 31 - 1, undefined, { signal })
      }
      log('step', { step: name, ...fields })
    }
    try {
      await run({ paths, options, port: portOf(frontDoor.listen), signal, log, step, undos })
    } catch (error) {
      if (undos.length > 0) {
        const undo = undos.map((one) => one.what).reverse()
        log(signal.aborted ? 'interrupted: undoing the deploy' : 'deploy failed: undoing it', { undo })
      }
      for (const undo of undos.reverse()) {
        await undo
          .run()
          .catch((undoError: Error) => log('undo failed', { undo: undo.what, err: { message: undoError.message } }))
      }
      await rm(paths.startingFile, { force: true })
      throw error
    }
  })
}

async function run(deployRun: DeployRun): Promise<void> {
  const { paths, options, port, signal, log, step } = deployRun
  const { frontDoor } = options
  const before = await readState(paths)
  const isLive = (id: string) => before.deployments.some((one) => one.id === id)

  await step('build', options.dist ? { dist: options.dist } : { source: options.source })
  const release: Release = options.dist
    ? await takeDist(options.dist)
    : await buildRelease(options.source, paths, isLive, signal)
  if (before.deployments.at(-1)?.id === release.id) {
    // The same build again: only the front door may have changed (another certificate, after certbot's first one).
    await writeJsonAtomically(path.join(paths.dir, 'front-door.json'), frontDoor)
    await applyRouting(paths, port, { state: before, frontDoor, drainOldWorkers: true })
    return log('deployment is live already: nothing to do but nginx re-reading its configuration', {
      deploymentId: release.id,
    })
  }
  if (isLive(release.id)) {
    throw new Error(`deployment ${release.id} is live already (an older one beside the newest): deploy another build`)
  }

  const assetsDir = await publishRelease(deployRun, release)
  const started = await startRelease(deployRun, release)
  await switchTo(deployRun, { id: release.id, root: release.root, instances: started }, before.deployments)
  deployRun.undos.length = 0

  // The shared folder keeps the assets of the last `keep` deployments; release folders of dropped ones go too.
  await step('prune', { keep: options.keep })
  const dropped = await pruneAssets(assetsDir, options.keep, [release.id])
  for (const id of dropped) {
    if (id !== release.id) await rm(path.join(paths.releases, id), { recursive: true, force: true })
  }
  if (dropped.length > 0) log('assets of old deployments removed', { deployments: dropped })
  log('deployed', { deploymentId: release.id })
}
