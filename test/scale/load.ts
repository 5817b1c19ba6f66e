/**
 * Load for the scale suite: N clients, each sending one request at a time over a kept-alive connection for a fixed
 * time, every response checked against the target of the request that got it. autocannon pairs responses with its
 * request list by position, which slips when a proxy closes a kept-alive connection (nginx does on every reload): it
 * cannot say which request a response answers there. A request sent on a kept-alive connection that the server had
 * closed meanwhile is sent once more on a new one, as browsers and HTTP clients do (RFC 9110 section 9.2.2): those
 * are counted apart, and a second failure counts as a lost request.
 */
import { Agent, request } from 'undici'
import type { Target } from '../reliability/targets.ts'

export interface LoadTally {
  sent: number
  /** Right status and body. */
  answered: number
  /** Wrong status or body, by target, with a few samples. */
  wrong: Record<string, { count: number; samples: string[] }>
  /** Requests that got no response even after the one resend on a new connection. */
  lost: number
  /** Requests resent once because their kept-alive connection had been closed by the other side. */
  resentAfterClose: number
  statusCodes: Record<string, number>
  seconds: number
  requestsPerSecond: number
}

const closedConnectionCodes = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED'])

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  return flat
}

export async function runMixedLoad(
  origin: string,
  targets: readonly Target[],
  options: { seconds: number; clients: number },
): Promise<LoadTally> {
  const agent = new Agent({
    connections: options.clients,
    keepAliveTimeout: 30_000,
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  })
  const tally: LoadTally = {
    sent: 0,
    answered: 0,
    wrong: {},
    lost: 0,
    resentAfterClose: 0,
    statusCodes: {},
    seconds: 0,
    requestsPerSecond: 0,
  }
  const started = performance.now()
  const endAt = started + options.seconds * 1000
  let next = 0

  async function once(target: Target) {
    const response = await request(`${origin}${target.path}`, { dispatcher: agent, headers: target.headers ?? {} })
    const body = Buffer.from(await response.body.arrayBuffer()).toString('utf8')
    return { status: response.statusCode, body, headers: flatHeaders(response.headers) }
  }

  async function client() {
    while (performance.now() < endAt) {
      const target = targets[next++ % targets.length]!
      tally.sent += 1
      let answer
      try {
        answer = await once(target)
      } catch (error) {
        if (!closedConnectionCodes.has((error as { code?: string }).code ?? '')) {
          tally.lost += 1
          continue
        }
        tally.resentAfterClose += 1
        try {
          answer = await once(target)
        } catch {
          tally.lost += 1
          continue
        }
      }
      tally.statusCodes[answer.status] = (tally.statusCodes[answer.status] ?? 0) + 1
      if (answer.status === target.status && target.check(answer.body, answer.headers)) {
        tally.answered += 1
        continue
      }
      const wrong = (tally.wrong[target.name] ??= { count: 0, samples: [] })
      wrong.count += 1
      if (wrong.samples.length < 3) wrong.samples.push(`${answer.status} ${answer.body.slice(0, 160)}`)
    }
  }

  try {
    await Promise.all(Array.from({ length: options.clients }, client))
  } finally {
    await agent.close()
  }
  tally.seconds = Math.round((performance.now() - started) / 10) / 100
  tally.requestsPerSecond = Math.round(tally.sent / tally.seconds)
  return tally
}
