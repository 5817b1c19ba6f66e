import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import type { Agent, fetch as undiciFetch } from 'undici'
import type { ImageOptimizerLimits } from '../../config/images.ts'
import { errors } from '../errors.ts'
import { isPrivateAddress } from './address-policy.ts'
import type { SourceImage } from './source-local.ts'

/** dns.lookup's shape, so tests can resolve names without a DNS server. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void

/** The system's resolver (dns.lookup), as a LookupFunction: the overload that takes options and answers one or all. */
const systemLookup: LookupFunction = (hostname, options, callback) => dnsLookup(hostname, options, callback)

export interface RemoteSourceOptions {
  origins: ReadonlySet<string>
  limits: Pick<ImageOptimizerLimits, 'maxRedirects' | 'fetchTimeoutMs' | 'maxSourceBytes'>
  /** Name resolution (default: dns.lookup). */
  lookup?: LookupFunction
  /** Addresses never connected to (default: loopback, private, link-local and reserved ranges). */
  isAddressRefused?: (address: string) => boolean
}

/** What a caller adds to a fetch and learns of it: its trace headers in, each response's status out. */
export interface RemoteRead {
  /**
   * Sent with every request of the fetch, redirects included, beside `Accept`: `traceparent` (src/images/optimizer.ts).
   */
  headers?: Readonly<Record<string, string>>
  /** Told of each response's status, a redirect's included, before it is judged. */
  onResponse?: (statusCode: number) => void
  /** Told of each redirect's target, before it is checked and fetched. */
  onRedirect?: (target: URL) => void
}

export interface RemoteSource {
  read(url: URL, options?: RemoteRead): Promise<SourceImage>
  close(): Promise<void>
}

class AddressRefusedError extends Error {
  override name = 'AddressRefusedError'
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** Seconds from `s-maxage` or `max-age`; 0 when the response must not be reused; undefined when it says nothing. */
export function upstreamMaxAge(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim())
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache' || directive === 'private')) {
    return 0
  }
  for (const name of ['s-maxage', 'max-age']) {
    const found = directives.find((directive) => directive.startsWith(`${name}=`))
    const seconds = found ? Number.parseInt(found.slice(name.length + 1).replace(/"/g, ''), 10) : Number.NaN
    if (Number.isInteger(seconds) && seconds >= 0) return seconds
  }
  return undefined
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = []
  let current: unknown = error
  while (current && chain.length < 5) {
    chain.push(current)
    current = (current as { cause?: unknown }).cause
  }
  return chain
}

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel()
      throw new errors.ImageUpstreamFailed(`the body is larger than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

/**
 * Fetches remote sources with undici: only from the allow-list, only to public addresses (checked on the resolved
 * address at connect time, so a name cannot change its answer between check and use), redirects followed by hand and
 * each one checked again, the body capped, the whole fetch bounded in time. Only `Accept` is sent, and the fetch
 * span's `traceparent` when the caller gives it: no cookie, no authorization, nothing of the visitor's request.
 */
export function createRemoteSource(options: RemoteSourceOptions): RemoteSource {
  const { origins, limits, lookup = systemLookup, isAddressRefused = isPrivateAddress } = options

  function guardedLookup(
    hostname: string,
    lookupOptions: LookupOptions,
    callback: Parameters<LookupFunction>[2],
  ): void {
    lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '')
      const list = addresses as LookupAddress[]
      const refused = list.find((entry) => isAddressRefused(entry.address))
      if (refused || list.length === 0) {
        return callback(new AddressRefusedError(`${hostname} resolves to ${refused?.address ?? 'nothing'}`), '')
      }
      if (lookupOptions.all) return callback(null, list)
      callback(null, list[0]!.address, list[0]!.family)
    })
  }

  // undici loads on the first remote fetch, not at start-up: most deployments list no remote origin at all.
  let client: Promise<{ agent: Agent; fetch: typeof undiciFetch }> | undefined
  function undiciClient() {
    client ??= import('undici').then(({ Agent, fetch }) => ({
      agent: new Agent({ connect: { lookup: guardedLookup } }),
      fetch,
    }))
    return client
  }

  function checkTarget(url: URL): void {
    if (!origins.has(url.origin)) {
      throw new errors.ImageUrlRefused(`url redirects to ${url.host}, which is not in the allow-list`)
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(host) && isAddressRefused(host)) {
      throw new errors.ImageUrlRefused('url resolves to a loopback, private or link-local address')
    }
  }

  async function read(initial: URL, options: RemoteRead = {}): Promise<SourceImage> {
    const signal = AbortSignal.timeout(limits.fetchTimeoutMs)
    const headers = { ...options.headers, accept: 'image/avif,image/webp,image/*;q=0.8' }
    let url = initial
    try {
      const { agent, fetch } = await undiciClient()
      for (let redirects = 0; ; redirects += 1) {
        checkTarget(url)
        const response = await fetch(url, {
          dispatcher: agent,
          redirect: 'manual',
          headers,
          signal,
        })
        options.onResponse?.(response.status)
        if (redirectStatuses.has(response.status)) {
          await response.body?.cancel()
          const location = response.headers.get('location')
          if (!location) throw new errors.ImageUpstreamFailed(`status ${response.status} without a Location`)
          if (redirects >= limits.maxRedirects) {
            throw new errors.ImageUpstreamFailed(`more than ${limits.maxRedirects} redirects`)
          }
          url = new URL(location, url)
          options.onRedirect?.(url)
          continue
        }
        if (!response.ok) {
          await response.body?.cancel()
          throw new errors.ImageUpstreamFailed(`status ${response.status}`)
        }
        const declared = Number(response.headers.get('content-length'))
        if (declared > limits.maxSourceBytes) {
          await response.body?.cancel()
          throw new errors.ImageUpstreamFailed(`the body is larger than ${limits.maxSourceBytes} bytes`)
        }
        const bytes = await readCapped(response.body as ReadableStream<Uint8Array> | null, limits.maxSourceBytes)
        return { bytes, maxAgeS: upstreamMaxAge(response.headers.get('cache-control')) }
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (typeof code === 'string' && code.startsWith('COURIER_ERR_')) throw error
      const chain = causeChain(error)
      if (chain.some((cause) => cause instanceof AddressRefusedError)) {
        throw new errors.ImageUrlRefused('url resolves to a loopback, private or link-local address')
      }
      if (signal.aborted) throw new errors.ImageUpstreamTimeout(limits.fetchTimeoutMs)
      throw new errors.ImageUpstreamFailed((error as Error).message, { cause: error })
    }
  }

  async function close(): Promise<void> {
    if (client) await (await client).agent.close()
  }

  return { read, close }
}
