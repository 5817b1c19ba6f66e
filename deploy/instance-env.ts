/**
 * The environment of a deployment's instances: the state's env file (`<state>/courier.env`: REDIS_URL,
 * REVALIDATE_TOKEN, LOG_LEVEL, ... as NAME=value lines, Node's own parser), a few variables of the machine, and what
 * the deploy knows better than a file: nginx's address (TRUST_PROXY), the public origin (SITE_URL, unless the file
 * names one), the site's data folder (DATA_DIR, `<state>/data` unless the file names one), the build (DIST_DIR for
 * `--dist`), loopback only (HOST). Nothing else of the shell that ran the
 * deploy reaches them: a deploy run from cron, a terminal or a service unit starts the same instances.
 */
import { X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { parseEnv } from 'node:util'
import { certificateNames, type TlsOptions } from './nginx-front-door.ts'
import { readPrivateFile, UntrustedPathError } from './state-trust.ts'

/** What the instances take from the machine (the locale, the time zone, where temporary files go). */
const machineVariables = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR']

/** The one peer an instance's socket admits is nginx (deploy/instance-socket.ts): its X-Forwarded-For names the
 * visitor, and nothing past it is trusted. */
const trustNginxAlone = '1'

/** The env file's variables (none without one); refused unless it is the user's (or root's) and mode 0600
 * (deploy/state-trust.ts): its NODE_OPTIONS alone would run its writer's code in every instance. */
export async function readEnvFile(file: string): Promise<Record<string, string>> {
  const text = (await readPrivateFile(file, 'COURIER_ERR_DEPLOY_UNTRUSTED_ENV_FILE')) ?? ''
  return { ...parseEnv(text) } as Record<string, string>
}

/** The certificate's first DNS name (certbot's `-d`), the host of the HTTPS origin. */
export async function certificateHost(certificateFile: string): Promise<string> {
  return (await certificateNames(certificateFile))[0]!
}

/**
 * Checks that the key is private to the user or root (deploy/state-trust.ts) and belongs to the certificate (nginx
 * would refuse the pair at reload, in fewer words).
 */
export async function checkKeyPair(tls: TlsOptions): Promise<void> {
  const cannotRead = (error: Error): never => {
    if (error instanceof UntrustedPathError) throw error
    throw new Error(`cannot read the TLS certificate or key: ${error.message}`)
  }
  const keyText =
    (await readPrivateFile(tls.key, 'COURIER_ERR_DEPLOY_UNTRUSTED_TLS_KEY').catch(cannotRead)) ??
    cannotRead(new Error(`ENOENT: no such file or directory, open '${tls.key}'`))
  const certificateText = await readFile(tls.certificate, 'utf8').catch(cannotRead)
  const { createPrivateKey } = await import('node:crypto')
  if (!new X509Certificate(certificateText).checkPrivateKey(createPrivateKey(keyText))) {
    throw new Error(`the key ${tls.key} does not belong to the certificate ${tls.certificate}`)
  }
}

/** The origin users reach: `https://<certificate host>[:port]` with TLS, else `http://<listen address>`. */
export async function publicOrigin(listen: string, tls: TlsOptions | undefined): Promise<string> {
  if (!tls) return `http://${listen}`
  const port = Number(tls.listen.slice(tls.listen.lastIndexOf(':') + 1))
  return `https://${await certificateHost(tls.certificate)}${port === 443 ? '' : `:${port}`}`
}

/** SITE_URL as the instances get it: the env file's, else the public origin. nginx redirects the plain port to it. */
export async function siteUrlOf(envFile: string, listen: string, tls: TlsOptions | undefined): Promise<string> {
  return (await readEnvFile(envFile)).SITE_URL ?? (await publicOrigin(listen, tls))
}

export async function instanceEnv(options: {
  envFile: string
  listen: string
  tls: TlsOptions | undefined
  /** Set for a `--dist` build, which may not be `<root>/dist`. */
  distDir: string | undefined
  /** The state's data folder: DATA_DIR unless the env file names one. */
  dataDir: string
}): Promise<{ env: Record<string, string>; fromFile: string[] }> {
  const file = await readEnvFile(options.envFile)
  const machine = Object.fromEntries(
    machineVariables.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  )
  const env: Record<string, string> = {
    ...machine,
    SITE_URL: await publicOrigin(options.listen, options.tls),
    DATA_DIR: options.dataDir,
    ...file,
    TRUST_PROXY: trustNginxAlone,
  }
  if (options.distDir) env.DIST_DIR = options.distDir
  return { env, fromFile: Object.keys(file) }
}
