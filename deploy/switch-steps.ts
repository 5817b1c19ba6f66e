/** The `route`, `grace` and `drain` steps of a deploy: nginx sends the site to the new deployment alone. */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { DeployRun } from './deploy-run.ts'
import { stopInstances } from './instances.ts'
import { applyRouting, stopNginx } from './nginx-control.ts'
import { instancesToStop, saveState, writeJsonAtomically, type DeployedRelease } from './state.ts'
import { ensureWatcher, stopWatcher } from './watcher-control.ts'

/**
 * `route`: documents and unnamed requests to the new deployment, requests naming an old one still to its instances;
 * the front door recorded, nginx and the readiness watcher started or reloaded. Undone by the routing of before.
 * With deployments live before: `grace`, then `drain`, the switch: from there the new deployment alone is live and
 * nothing is undone; the old instances are stopped whatever happens (an interruption now waits for it, bounded by
 * their drain time).
 */
export async function switchTo(run: DeployRun, next: DeployedRelease, old: DeployedRelease[]): Promise<void> {
  const { paths, options, port, signal, log } = run
  const { frontDoor } = options
  await run.step('route', { deploymentId: next.id })
  run.undos.push({
    what: 'route back to the deployments live before',
    run: async () => {
      await saveState(paths, { deployments: old })
      if (old.length > 0) {
        await applyRouting(paths, port, { state: { deployments: old }, frontDoor, drainOldWorkers: true })
      } else {
        await stopWatcher(paths)
        await stopNginx(paths.nginx, port)
      }
    },
  })
  await writeJsonAtomically(path.join(paths.dir, 'front-door.json'), frontDoor)
  await saveState(paths, { deployments: [...old, next] })
  await rm(paths.startingFile, { force: true })
  await applyRouting(paths, port, { state: { deployments: [...old, next] }, frontDoor })
  const https = frontDoor.tls?.listen
  log('nginx routes documents to the new deployment', { deploymentId: next.id, listen: frontDoor.listen, https })
  const watcher = await ensureWatcher(paths, frontDoor.listen)
  log(`readiness watcher ${watcher}`, { log: paths.watcherLog })
  if (old.length === 0) return

  const ids = old.map((one) => one.id)
  await run.step('grace', { seconds: options.oldGraceSeconds, deployments: ids })
  await sleep(options.oldGraceSeconds * 1000, undefined, { signal })
  await run.step('drain', { deployments: ids })
  run.undos.length = 0
  const oldInstances = await instancesToStop(paths, ids)
  await saveState(paths, { deployments: [next] })
  await applyRouting(paths, port, { state: { deployments: [next] }, drainOldWorkers: true })
  await stopInstances(oldInstances, { checkPort: true, log, paths })
  log('old instances drained', { deployments: ids })
}
