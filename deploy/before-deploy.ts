/**
 * What a deploy (and `--stop`, `--reload`) checks and tidies in the state folder before its first step: the folders
 * nginx serves and their modes, the build folders and instances a killed deploy left, the front door recorded.
 */
import { chmod, mkdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { prepareSocketFolder } from './instance-socket.ts'
import { stopInstances, type Log } from './instances.ts'
import { nginxMaster, portOf, type FrontDoor } from './nginx-control.ts'
import { removeStaleStaging } from './release.ts'
import { readStarting, readState, type StatePaths } from './state.ts'
import { passThroughMode, stateModes } from './state-trust.ts'

/** The state folder made ready for a deploy on `frontDoor`; refused, naming why, when it cannot be. */
export async function prepareState(paths: StatePaths, frontDoor: FrontDoor, log: Log): Promise<void> {
  const challenges = path.join(paths.acme, '.well-known', 'acme-challenge')
  await mkdir(paths.releases, { recursive: true })
  await mkdir(challenges, { recursive: true })
  // nginx started as root serves the assets and the challenges as an unprivileged user: it must reach them, and
  // nothing else of the state (a state of an older deploy had its folders and files open to every user).
  await chmod(paths.dir, passThroughMode())
  await chmod(paths.releases, 0o700)
  for (const folder of [paths.acme, path.dirname(challenges), challenges]) await chmod(folder, stateModes.servedFolder)
  for (const file of privateFiles(paths)) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
  }
  await checkReachableByNginxWorkers(paths.dir)
  await prepareSocketFolder(paths)
  await removeStaleStaging(paths)
  await stopLeftoverInstances(paths, log)
  const running = await recordedFrontDoor(paths)
  const otherListen = running !== undefined && running.listen !== frontDoor.listen
  if (otherListen && (await nginxMaster(paths.nginx, portOf(running.listen))) !== undefined) {
    throw new Error(
      `nginx of this state listens on ${running.listen}: stop it (--stop) before deploying on ${frontDoor.listen}`,
    )
  }
}

/** The files of the state the deploy and the watcher write (the folders below are private by their own mode). */
function privateFiles(paths: StatePaths): string[] {
  const { stateFile, outOfRotationFile, watcherFile, watcherLog, startingFile } = paths
  return [stateFile, outOfRotationFile, watcherFile, watcherLog, startingFile, path.join(paths.dir, 'front-door.json')]
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
  const starting = await readStarting(paths)
  const live = new Set(
    (await readState(paths)).deployments.flatMap((one) => one.instances.map((instance) => instance.pid)),
  )
  const leftovers = starting.filter((instance) => !live.has(instance.pid))
  if (leftovers.length > 0) {
    log('stopping instances a killed deploy left', { instances: leftovers.map(({ pid, socket }) => ({ pid, socket })) })
  }
  await stopInstances(leftovers, { checkSocket: false, log, paths })
  await rm(paths.startingFile, { force: true })
}

/** The front door of the last deploy of this state: `--stop` and `--reload` need nothing but the state folder. */
export async function recordedFrontDoor(paths: StatePaths): Promise<FrontDoor | undefined> {
  const text = await readFile(path.join(paths.dir, 'front-door.json'), 'utf8').catch(() => undefined)
  return text === undefined ? undefined : (JSON.parse(text) as FrontDoor)
}
