/** What every step of a deploy shares (deploy/deploy-steps.ts runs them in order). */
import type { Log } from './instances.ts'
import type { FrontDoor } from './nginx-control.ts'
import type { StatePaths } from './state.ts'

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
