import proxyAddr from '@fastify/proxy-addr'
import type { TrustProxy } from '../../config/env.ts'

/**
 * Whether the peer a request came from (the socket's address, not X-Forwarded-For) is a proxy TRUST_PROXY trusts:
 * only such a sender may continue a trace with its `traceparent` (docs/operations.md "Traces"). `true` trusts every
 * peer, a hop count trusts the closest hop, a list trusts its addresses and ranges, `false` none. A list is compiled by
 * proxy-addr, as Fastify compiles the same TRUST_PROXY, so both read it alike (IPv4-mapped IPv6 peers included).
 */
export function compileTrustedPeer(trustProxy: TrustProxy): (address: string | undefined) => boolean {
  if (typeof trustProxy === 'boolean') return () => trustProxy
  if (typeof trustProxy === 'number') return () => trustProxy >= 1
  const trusts = proxyAddr.compile([...trustProxy])
  return function isTrustedPeer(address) {
    return address !== undefined && trusts(address, 0)
  }
}
