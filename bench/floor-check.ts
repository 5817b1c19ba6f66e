/**
 * The floor is only a floor if it sends the same document. Before any load, one /status from each server is compared
 * with every number masked (server time, uptime and memory differ between two processes and two instants; the other
 * digits, in hashes and the deployment id, are the same on both sides): any other difference means the bare server
 * renders something else.
 */

export interface FloorCheck {
  sameDocument: boolean
  courierBytes: number
  bareBytes: number
  contentType: { courier: string | null; bare: string | null }
  /** Where the masked documents first differ, with some context from each. */
  firstDifference?: { at: number; courier: string; bare: string }
}

/** Courier's documents carry a per-request CSP nonce (the request filter); the floor runs no filter and has none. */
const maskNumbers = (html: string) => html.replace(/ nonce="[^"]*"/g, '').replace(/\d+(?:\.\d+)?/g, '0')

async function get(url: string): Promise<{ body: string; contentType: string | null }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { body: await response.text(), contentType: response.headers.get('content-type') }
}

export async function checkFloor(courierUrl: string, bareUrl: string): Promise<FloorCheck> {
  const [courier, bare] = await Promise.all([get(courierUrl), get(bareUrl)])
  const masked = { courier: maskNumbers(courier.body), bare: maskNumbers(bare.body) }
  const check: FloorCheck = {
    sameDocument: masked.courier === masked.bare && courier.contentType === bare.contentType,
    courierBytes: Buffer.byteLength(courier.body),
    bareBytes: Buffer.byteLength(bare.body),
    contentType: { courier: courier.contentType, bare: bare.contentType },
  }
  if (masked.courier !== masked.bare) {
    let at = 0
    while (at < masked.courier.length && masked.courier[at] === masked.bare[at]) at += 1
    const around = (text: string) => text.slice(Math.max(0, at - 60), at + 60)
    check.firstDifference = { at, courier: around(masked.courier), bare: around(masked.bare) }
  }
  return check
}
