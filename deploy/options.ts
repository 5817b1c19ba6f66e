/** The deploy's command line, read once into one typed value; every bad input is one message naming it. */
import path from 'node:path'
import { parseArgs } from 'node:util'
import type { DeployOptions } from './deploy-steps.ts'
import type { FrontDoor } from './nginx-control.ts'

export type Command =
  | ({ kind: 'deploy'; state: string } & DeployOptions)
  | { kind: 'stop'; state: string }
  | { kind: 'reload'; state: string }

export const usage = `usage:
  npm run deploy -- --state <dir> --listen <address:port> [--source <checkout> | --dist <built dist>]
      [--https-listen <address:port> --tls-cert <fullchain.pem> --tls-key <privkey.pem>]
      [--instances 2] [--keep 3] [--old-grace-seconds 30] [--service-manager none|systemd]
  npm run deploy -- --reload --state <dir>     (nginx re-reads its configuration and the certificate files)
  npm run deploy -- --stop --state <dir>       (nginx, the readiness watcher and every instance of the state)`

export class UsageError extends Error {
  override name = 'UsageError'
}

/** `address:port`, IPv4, a name or [IPv6], port 1-65535. */
const addressPattern = /^(?:[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/

function address(name: string, text: string): string {
  const port = Number(addressPattern.exec(text)?.[1])
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(
      `--${name} must be address:port, e.g. 127.0.0.1:8080 or 0.0.0.0:443 (got ${JSON.stringify(text)})`,
    )
  }
  return text
}

function wholeNumber(name: string, text: string, minimum: number): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isInteger(value) || value < minimum) {
    throw new UsageError(`--${name} must be a whole number >= ${minimum} (got ${JSON.stringify(text)})`)
  }
  return value
}

export function readCommand(args: string[], projectRoot: string): Command {
  let values
  try {
    ;({ values } = parseArgs({
      args,
      options: {
        state: { type: 'string' },
        listen: { type: 'string', default: '127.0.0.1:8080' },
        'https-listen': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        instances: { type: 'string', default: '2' },
        keep: { type: 'string', default: '3' },
        'old-grace-seconds': { type: 'string', default: '30' },
        'service-manager': { type: 'string', default: 'none' },
        source: { type: 'string', default: projectRoot },
        dist: { type: 'string' },
        stop: { type: 'boolean', default: false },
        reload: { type: 'boolean', default: false },
      },
    }))
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`)
  }
  if (!values.state) {
    throw new UsageError(
      `--state <dir> is required: the folder that holds this site's nginx, releases and state\n${usage}`,
    )
  }
  const state = path.resolve(values.state)
  if (values.stop && values.reload) throw new UsageError('--stop and --reload are two commands: give one')
  if (values.stop) return { kind: 'stop', state }
  if (values.reload) return { kind: 'reload', state }
  const serviceManager = values['service-manager']
  if (serviceManager !== 'none' && serviceManager !== 'systemd') {
    throw new UsageError(`--service-manager must be none or systemd (got ${JSON.stringify(serviceManager)})`)
  }
  const frontDoor = readFrontDoor(values)
  return {
    kind: 'deploy',
    state,
    frontDoor,
    instances: wholeNumber('instances', values.instances, 1),
    keep: wholeNumber('keep', values.keep, 1),
    oldGraceSeconds: wholeNumber('old-grace-seconds', values['old-grace-seconds'], 0),
    source: path.resolve(values.source),
    dist: values.dist === undefined ? undefined : path.resolve(values.dist),
    serviceManager,
  }
}

/** The plain port, and with TLS the HTTPS port, the certificate and the key: all three or none. */
function readFrontDoor(values: {
  listen: string
  'https-listen'?: string | undefined
  'tls-cert'?: string | undefined
  'tls-key'?: string | undefined
}): FrontDoor {
  const tlsParts = [values['https-listen'], values['tls-cert'], values['tls-key']]
  if (tlsParts.some(Boolean) && !tlsParts.every(Boolean)) {
    throw new UsageError('HTTPS needs all three of --https-listen, --tls-cert and --tls-key')
  }
  const listen = address('listen', values.listen)
  if (!values['https-listen']) return { listen }
  const tls = {
    listen: address('https-listen', values['https-listen']),
    certificate: path.resolve(values['tls-cert']!),
    key: path.resolve(values['tls-key']!),
  }
  if (tls.listen === listen) throw new UsageError(`--https-listen must differ from --listen (both ${listen})`)
  return { listen, tls }
}
