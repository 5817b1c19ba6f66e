/**
 * The systemd units of a state's instances (`--service-manager systemd`): `courier-instance@<name>.service`, the
 * template docs/running-at-scale.md "As a service" gives, which runs deploy/instance-run.ts for that instance. Started and
 * stopped here with `systemctl`, as the user the deploy runs as (a polkit rule in the doc lets it manage these units
 * alone). Not exercised by the tests: they run where systemd is not PID 1.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export const unitTemplate = 'courier-instance@.service'

export function unitOf(name: string): string {
  return unitTemplate.replace('@', `@${name}`)
}

/** `systemctl <verb> <unit>`, with `--no-ask-password` (the deploy runs unattended: allowed by polkit, or refused). */
async function systemctl(args: string[], unit: string): Promise<void> {
  await run('systemctl', ['--no-ask-password', ...args, unit], { timeout: 60_000 }).catch(
    (error: Error & { stderr?: string }) => {
      throw new Error(`systemctl ${args.join(' ')} ${unit} failed: ${error.stderr?.trim() || error.message}`)
    },
  )
}

/** Queues the start and returns (`--no-block`: a deploy run by courier.service's own start job never waits on a job
 * of systemd's); the deploy then waits for the instance itself (deploy/instance-units.ts). */
export const startUnit = (unit: string) => systemctl(['start', '--no-block'], unit)
/** Returns once the instance has stopped (it drains on SIGTERM; the unit's TimeoutStopSec bounds it). */
export const stopUnit = (unit: string) => systemctl(['stop'], unit)
