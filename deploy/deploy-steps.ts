/**
 * A rolling deploy, step by step (docs/running-at-scale.md "Rolling deploy"): build, publish, start, ready, route,
 * grace, drain, prune. Each step that changes something pushes its undo; an interruption (SIGINT, SIGTERM: `signal`)
 * before the drain step runs the undos in reverse, so the live site, its processes and state.json are as they were
 * and the same deploy can run again. From the drain step on, the new deployment is the live one: an interruption
 * still stops the old instances (no orphan), and the next deploy prunes what this one did not.
 */
import { chmod, mkdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { dictionaryFilesIn, writeDeltas } from '../src/build/dictionary-deltas.ts'
import { instanceEnv, checkKeyPair } from './instance-env.ts'
import { startInstances, stopInstances, waitAllReady, type Log } from './instances.ts'
import { applyRouting, nginxMaster, portOf, stopNginx, type FrontDoor } from './nginx-control.ts'
import { publishAssets, pruneAssets, retainedChunkNames } from './nginx-prefix.ts'
import { buildRelease, removeStaleStaging, takeDist, type Release } from './release.ts'
import {
  readState,
  saveState,
  withLock,
  writeJsonAtomically,
  type DeployedRelease,
  type Instance,
  type StatePaths,
} from './state.ts'
import { ensureWatcher, stopWatcher } from './watcher-control.ts'

export interface DeployOptions {
  frontDoor: FrontDoor
  instances: number
  keep: number
  oldGraceSeconds: number
  source: string
  dist: string | undefined
}

export const deploySteps = ['build', 'publish', 'start', 'ready', 'route', 'grace', 'drain', 'prune'] as const
export type DeployStep = (typeof deploySteps)[number]

/** For the tests that interrupt each step: the deploy waits before this step until it is interrupted. */
const holdBefore = process.env.COURIER_DEPLOY_HOLD_BEFORE

export async function deploy(paths: StatePaths, options: DeployOptions, signal: AbortSignal, log: Log): Promise<void> {
  const { frontDoor } = options
  const port = portOf(frontDoor.listen)
  if (frontDoor.tls) await checkKeyPair(frontDoor.tls)
  // One deploy per state at a time; a second one is refused at once, naming the first.
  await withLock(paths, 'deploy', 0, async () => {
    await mkdir(paths.releases, { recursive: true })
    await mkdir(path.join(paths.acme, '.well-known', 'acme-challenge'), { recursive: true })
    // nginx started as root serves the assets and the challenges as an unprivileged user: it must reach them.
    for (const folder of [paths.dir, paths.acme, path.join(paths.acme, '.well-known'), path.join(paths.acme, '.well-known', 'acme-challenge')]) await chmod(folder, 0o755)
    await checkReachableByNginxWorkers(paths.dir)
    await removeStaleStaging(paths)
    await stopLeftoverInstances(paths, log)
    const running = await recordedFrontDoor(paths)
    if (
      running &&
      running.listen !== frontDoor.listen &&
      (await nginxMaster(paths.nginx, portOf(running.listen))) !== undefined
    ) {
      throw new Error(
        `nginx of this state listens on ${running.listen}: stop it (--stop) before deploying on ${frontDoor.listen}`,
      )
    }
    const undos: Array<{ what: string; run: () => Promise<void> }> = []
    const step = async (name: DeployStep, fields: Record<string, unknown> = {}) => {
      signal.throwIfAborted()
      if (holdBefore === name) {
        log('holding before step (COURIER_DEPLOY_HOLD_BEFORE)', { step: name })
        await sleep(2 ** 31 - 1, undefined, { signal })
      }
      log('step', { step: name, ...fields })
    }
    try {
      await run(paths, options, port, signal, log, step, undos)
    } catch (error) {
      if (undos.length > 0) {
        log(signal.aborted ? 'interrupted: undoing the deploy' : 'deploy failed: undoing it', { undo: undos.map((one) => one.what).reverse() })
      }
      for (const undo of undos.reverse()) {
        await undo.run().catch(
          (undoError: Error) => log('undo failed', { undo: undo.what, err: { message: undoError.message } }),
        )
      }
      await rm(paths.startingFile, { force: true })
      throw error
    }
  })
}

/**
 * nginx started by root serves files (the shared assets, certbot's challenges) as `nobody`: every folder above the
 * state must let others through (`x`), or nginx answers 404 for files that are there. Said before anything starts.
 */
async function checkReachableByNginxWorkers(stateDir: string): Promise<void> {
  if (process.getuid?.() !== 0) return
  for (let folder = path.dirname(stateDir); ; folder = path.dirname(folder)) {
    const { mode } = await stat(folder)
    if ((mode & 0o001) === 0) {
      throw new Error(
        `nginx's workers (user nobody) cannot reach ${stateDir}: ${folder} is mode ${(mode & 0o777).toString(8)}; ` +
          `\`chmod o+x ${folder}\`, or put the state folder elsewhere (e.g. /srv/courier)`,
      )
    }
    if (path.dirname(folder) === folder) return
  }
}

/**
 * A deploy killed outright (SIGKILL, a power cut) undoes nothing: the instances it had started but not yet written
 * into state.json are in `starting.json`. The next deploy or `--stop` (holding the deploy lock) stops those that are
 * still the processes recorded (pid and start time) and not live.
 */
export async function stopLeftoverInstances(paths: StatePaths, log: Log): Promise<void> {
  const text = await readFile(paths.startingFile, 'utf8').catch(() => undefined)
  if (text === undefined) return
  const live = new Set(
    (await readState(paths)).deployments.flatMap((one) => one.instances.map((instance) => instance.pid)),
  )
  const leftovers = (JSON.parse(text) as Instance[]).filter((instance) => !live.has(instance.pid))
  if (leftovers.length > 0) {
    log('stopping instances a killed deploy left', { instances: leftovers.map(({ pid, port }) => ({ pid, port })) })
  }
  await stopInstances(leftovers, { checkPort: false, log })
  await rm(paths.startingFile, { force: true })
}

/** The front door of the last deploy of this state: `--stop` and `--reload` need nothing but the state folder. */
export async function recordedFrontDoor(paths: StatePaths): Promise<FrontDoor | undefined> {
  const text = await readFile(path.join(paths.dir, 'front-door.json'), 'utf8').catch(() => undefined)
  return text === undefined ? undefined : (JSON.parse(text) as FrontDoor)
}

async function run(
  paths: StatePaths,
  options: DeployOptions,
  port: number,
  signal: AbortSignal,
  log: Log,
  step: (name: DeployStep, fields?: Record<string, unknown>) => Promise<void>,
  undos: Array<{ what: string; run: () => Promise<void> }>,
): Promise<void> {
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
    return log(
      'deployment is live already: nothing to do but nginx re-reading its configuration',
      { deploymentId: release.id },
    )
  }
  if (isLive(release.id)) {
    throw new Error(`deployment ${release.id} is live already (an older one beside the newest): deploy another build`)
  }

  // Deltas of its chunks against those of the deployments kept with it (docs/running-at-scale.md "Dictionaries after
  // a deploy"), then its assets into the shared folder: from now on its chunks are fetchable through nginx.
  await step('publish', { deploymentId: release.id })
  const assetsDir = path.join(paths.nginx, 'assets')
  const retained = await retainedChunkNames(assetsDir, options.keep - 1)
  const dictionaryFiles = await dictionaryFilesIn(path.join(assetsDir, '_next', 'static', 'chunks'), retained)
  const deltas = await writeDeltas(path.join(release.distDir, 'client', 'chunks'), dictionaryFiles)
  log('dictionary deltas written', { deploymentId: release.id, deltas: deltas.written.length, notSmaller: deltas.notSmaller, tooLarge: deltas.tooLarge })
  undos.push({ what: 'unpublish', run: () => rm(path.join(assetsDir, 'deployments', `${release.id}.json`), { force: true }) })
  const replaced: string[] = []
  const published = await publishAssets(release.distDir, assetsDir, release.id, replaced)
  log('assets published', { deploymentId: release.id, files: published, replaced })

  await step('start', { deploymentId: release.id, instances: options.instances })
  const { env, fromFile } = await instanceEnv({
    envFile: paths.envFile,
    listen: frontDoor.listen,
    tls: frontDoor.tls,
    distDir: release.distDir === path.join(release.root, 'dist') ? undefined : release.distDir,
  })
  log('instance environment', { envFile: paths.envFile, fromFile, SITE_URL: env.SITE_URL, TRUST_PROXY: env.TRUST_PROXY })
  const started = await startInstances(
    release,
    options.instances,
    env,
    path.join(paths.releases, release.id, 'logs'),
    (running) => writeJsonAtomically(paths.startingFile, running),
    signal,
    log,
  )
  undos.push({ what: 'stop the new instances', run: async () => void (await stopInstances(started, { checkPort: false, log })) })
  log('instances started', { deploymentId: release.id, instances: started.map(({ port: instancePort, pid, log: file }) => ({ port: instancePort, pid, log: file })) })

  await step('ready', { deploymentId: release.id })
  await waitAllReady(started, signal)
  log('instances ready', { deploymentId: release.id, ports: started.map((one) => one.port) })

  // Documents and unnamed requests to the new deployment, requests naming an old one still to its instances.
  await step('route', { deploymentId: release.id })
  const next: DeployedRelease = { id: release.id, root: release.root, instances: started }
  const old = before.deployments
  undos.push({
    what: 'route back to the deployments live before',
    run: async () => {
      await saveState(paths, { deployments: old })
      if (old.length > 0) await applyRouting(paths, port, { state: { deployments: old }, frontDoor, drainOldWorkers: true })
      else {
        await stopWatcher(paths)
        await stopNginx(paths.nginx, port)
      }
    },
  })
  await writeJsonAtomically(path.join(paths.dir, 'front-door.json'), frontDoor)
  await saveState(paths, { deployments: [...old, next] })
  await rm(paths.startingFile, { force: true })
  await applyRouting(paths, port, { state: { deployments: [...old, next] }, frontDoor })
  log('nginx routes documents to the new deployment', { deploymentId: release.id, listen: frontDoor.listen, https: frontDoor.tls?.listen })
  const watcher = await ensureWatcher(paths, frontDoor.listen)
  log(`readiness watcher ${watcher}`, { log: paths.watcherLog })

  if (old.length > 0) {
    await step('grace', { seconds: options.oldGraceSeconds, deployments: old.map((one) => one.id) })
    await sleep(options.oldGraceSeconds * 1000, undefined, { signal })

    // The switch: from here the new deployment alone is live and nothing is undone; the old instances are stopped
    // whatever happens (an interruption now waits for it, bounded by their drain time).
    await step('drain', { deployments: old.map((one) => one.id) })
    undos.length = 0
    await saveState(paths, { deployments: [next] })
    await applyRouting(paths, port, { state: { deployments: [next] }, drainOldWorkers: true })
    await stopInstances(
      old.flatMap((one) => one.instances),
      { checkPort: true, log },
    )
    log('old instances drained', { deployments: old.map((one) => one.id) })
  }
  undos.length = 0

  // The shared folder keeps the assets of the last `keep` deployments; release folders of dropped ones go too.
  await step('prune', { keep: options.keep })
  const dropped = await pruneAssets(assetsDir, options.keep, [release.id])
  for (const id of dropped) if (id !== release.id) await rm(path.join(paths.releases, id), { recursive: true, force: true })
  if (dropped.length > 0) log('assets of old deployments removed', { deployments: dropped })
  log('deployed', { deploymentId: release.id })
}
