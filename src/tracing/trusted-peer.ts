import { BlockList, isIP } from 'node:net'
import type { TrustProxy } from '../../config/env.ts'

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is 10.0.0.1. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address
}

/**
 * Whether the peer a request came from (the socket's address, not X-Forwarded-For) is a proxy TRUST_PROXY trusts:
 * only such a sender may continue a trace with its `traceparent` (README "Traces"). `true` trusts every peer, a hop
 * count trusts the closest hop, a list trusts its addresses and ranges, `false` none.
 */
export function compileTrustedPeer(trustProxy: TrustProxy): (address: string | undefined) => boolean {
  if (typeof trustProxy === 'boolean') return () => trustProxy
  if (typeof trustProxy === 'number') return () => trustProxy >= 1
  const trusted = new BlockList()
  for (const entry of trustProxy) {
    const [address = '', prefix] = entry.split('/')
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) trusted.addAddress(address, family)
    else trusted.addSubnet(address, Number(prefix), family)
  }
  return function isTrustedPeer(address) {
    if (address === undefined) return false
    const plain = plainAddress(address)
    const family = isIP(plain)
    if (family === 0) return false
    return trusted.check(plain, family === 6 ? 'ipv6' : 'ipv4')
  }
}
