/** The `start` and `ready` steps of a deploy: the release's instances running and answering. */
import path from 'node:path'
import type { DeployRun } from './deploy-run.ts'
import { instanceEnv } from './instance-env.ts'
import { startUnits } from './instance-units.ts'
import { instanceCommand, startInstances, stopInstances, waitAllReady } from './instances.ts'
import type { Release } from './release.ts'
import { writeJsonAtomically, type Instance } from './state.ts'

/**
 * Starts `--instances` processes of the release with the state's environment (each recorded in `starting.json` as it
 * starts, for a deploy killed outright): the deploy's own, or systemd units with `--service-manager systemd`
 * (deploy/instance-units.ts). Undone by stopping them; then waits until each is ready.
 */
export async function startRelease(run: DeployRun, release: Release): Promise<Instance[]> {
  const { paths, options, signal, log } = run
  const { frontDoor } = options
  await run.step('start', { deploymentId: release.id, instances: options.instances })
  const { env, fromFile } = await instanceEnv({
    envFile: paths.envFile,
    listen: frontDoor.listen,
    tls: frontDoor.tls,
    distDir: release.distDir === path.join(release.root, 'dist') ? undefined : release.distDir,
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
  const stop = async () => void (await stopInstances(started, { checkPort: false, log, paths }))
  run.undos.push({ what: 'stop the new instances', run: stop })
  const described = started.map(({ port, pid, log: file, unit }) => ({ port, pid, log: file, unit }))
  log('instances started', { deploymentId: release.id, instances: described })

  await run.step('ready', { deploymentId: release.id })
  await waitAllReady(started, signal)
  log('instances ready', { deploymentId: release.id, ports: started.map((one) => one.port) })
  return started
}
