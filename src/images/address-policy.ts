import { BlockList, isIP } from 'node:net'

/**
 * Addresses a remote image fetch must never reach: the machine itself, private networks, link-local (cloud metadata
 * services at 169.254.169.254 live there), carrier-grade NAT, multicast and reserved ranges. Sources: RFC 6890 and
 * RFC 4193 / 4291 for IPv6.
 */
function buildBlockList(): BlockList {
  const list = new BlockList()
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ]
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4')
  const v6: Array<[string, number]> = [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ]
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6')
  return list
}

const blocked = buildBlockList()

/** True for an address the optimizer refuses to connect to (IPv4-mapped IPv6 is judged by its IPv4 part). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped) return blocked.check(mapped[1]!, 'ipv4')
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family === 6) return blocked.check(address, 'ipv6')
  return true
}
