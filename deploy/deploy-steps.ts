/**
 * A rolling deploy, step by step (docs/running-at-scale.md "Rolling deploy"): build, publish, start, ready, route,
 * grace, drain, prune. Each step that changes something pushes its undo; an interruption (SIGINT, SIGTERM: `signal`)
 * before the drain step runs the undos in reverse, so the live site, its processes and state.json are as they were
 * and the same deploy can run again. From the drain step on, the new deployment is the live one: an interruption
 * still stops the old instances (no orphan), and the next deploy prunes what this one did not.
 *
 * What a deploy checks first is deploy/before-deploy.ts; the steps are here, in their order: 1. build, 2. publish,
 * 3. start and 4. ready, 5. route, 6. grace and 7. drain, 8. prune.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { dictionaryFilesIn, writeDeltas } from '../src/build/index.ts'
import { prepareState } from './before-deploy.ts'
import { checkKeyPair, instanceEnv, readEnvFile } from './instance-env.ts'
import { startUnits } from './instance-units.ts'
import { instanceCommand, startInstances, stopInstances, waitAllReady, type Log } from './instances.ts'
import { applyRouting, portOf, stopNginx, type FrontDoor } from './nginx-control.ts'
import { buildRelease, takeDist, type Release } from './release.ts'
import { publishAssets, pruneAssets, retainedChunkFolders } from './shared-assets.ts'
import {
  instancesToStop,
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
  /** `none`: the deploy starts the instances as its own processes; `systemd`: as units that systemd starts again when
   * they fail (deploy/instance-units.ts). */
  serviceManager: 'none' | 'systemd'
}

/** The steps, in order (docs/running-at-scale.md "Rolling deploy"): each logs `{"msg":"step","step":"<name>"}`. */
export const deploySteps = ['build', 'publish', 'start', 'ready', 'route', 'grace', 'drain', 'prune'] as const
export type DeployStep = (typeof deploySteps)[number]

/** What a step changed, to be undone if the deploy stops before the drain step. */
export interface Undo {
  what: string
  run: () => Promise<void>
}

/** One deploy, as its steps see it. */
export interface DeployRun {
  paths: StatePaths
  options: DeployOptions
  /** nginx's plain port (`--listen`). */
  port: number
  /** Aborted by SIGINT or SIGTERM. */
  signal: AbortSignal
  log: Log
  /** Begins step `name`: its log line, once the deploy has not been interrupted. */
  step(name: DeployStep, fields?: Record<string, unknown>): Promise<void>
  /** Pushed by each step that changes something; run in reverse when the deploy stops before the drain step. */
  undos: Undo[]
}

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

/** 1. build, then the steps below in order, then 8. prune. */
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

// 2. publish

/**
 * Deltas of the release's chunks against those of the deployments kept with it, each deployment's own bytes
 * (docs/running-at-scale.md "Dictionaries after a deploy"), then its assets into its folder of nginx's shared folder
 * (deploy/shared-assets.ts): from now on its chunks are fetchable. Undone by removing its manifest (its folder goes at
 * the next prune). Answers the shared folder.
 */
async function publishRelease(run: DeployRun, release: Release): Promise<string> {
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

// 3. start and 4. ready

/**
 * Starts `--instances` processes of the release with the state's environment (each recorded in `starting.json` as it
 * starts, for a deploy killed outright): the deploy's own, or systemd units with `--service-manager systemd`
 * (deploy/instance-units.ts). Undone by stopping them; then waits until each is ready.
 */
async function startRelease(run: DeployRun, release: Release): Promise<Instance[]> {
  const { paths, options, signal, log } = run
  const { frontDoor } = options
  await run.step('start', { deploymentId: release.id, instances: options.instances })
  const { env, fromFile } = await instanceEnv({
    envFile: paths.envFile,
    listen: frontDoor.listen,
    tls: frontDoor.tls,
    distDir: release.distDir === path.join(release.root, 'dist') ? undefined : release.distDir,
    dataDir: paths.data,
  })
  const { SITE_URL, TRUST_PROXY } = env
  log('instance environment', { envFile: paths.envFile, fromFile, SITE_URL, TRUST_PROXY })
  const start = options.serviceManager === 'systemd' ? startUnits : startInstances
  const started = await start({
    paths,
    deploymentId: release.id,
    command: await instanceCommand(release, env),
    count: options.instances,
    logDir: path.join(paths.releases, release.id, 'logs'),
    onStarted: (running) => writeJsonAtomically(paths.startingFile, running),
    signal,
    log,
  })
  const stop = async () => void (await stopInstances(started, { checkSocket: false, log, paths }))
  run.undos.push({ what: 'stop the new instances', run: stop })
  const described = started.map(({ socket, pid, log: file, unit }) => ({ socket, pid, log: file, unit }))
  log('instances started', { deploymentId: release.id, instances: described })

  await run.step('ready', { deploymentId: release.id })
  await waitAllReady(started, signal)
  log('instances ready', { deploymentId: release.id, sockets: started.map((one) => one.socket) })
  return started
}

// 5. route, 6. grace and 7. drain

/**
 * `route`: documents and unnamed requests to the new deployment, requests naming an old one still to its instances;
 * the front door recorded, nginx and the readiness watcher started or reloaded. Undone by the routing of before.
 * With deployments live before: `grace`, then `drain`, the switch: from there the new deployment alone is live and
 * nothing is undone; the old instances are stopped whatever happens (an interruption now waits for it, bounded by
 * their drain time).
 */
async function switchTo(run: DeployRun, next: DeployedRelease, old: DeployedRelease[]): Promise<void> {
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
  await stopInstances(oldInstances, { checkSocket: true, log, paths })
  log('old instances drained', { deployments: ids })
}
