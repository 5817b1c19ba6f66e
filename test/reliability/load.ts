/**
 * Drives autocannon over a request mix and checks every response against its target. The run ends by draining:
 * after `seconds`, the connections send nothing more, each closes once its pipelined requests are all answered,
 * so every request sent has its response and the count can be held against the server's access lines. (autocannon
 * alone destroys its connections with up to connections x pipelining requests in flight.)
 */
import autocannon from 'autocannon'
import type { Target } from './targets.ts'

export interface LoadOptions {
  seconds: number
  connections: number
  pipelining: number
  /** A response slower than this counts as a time-out (and an error). */
  timeoutSeconds: number
  /** How long the drain may take before autocannon stops anyway (and the counts disagree, failing the test). */
  drainSeconds: number
}

export interface TargetTally {
  responses: number
  /** Responses whose status was not the target's. */
  wrongStatus: number
  /** Responses with the right status whose body or headers were wrong. */
  mismatches: number
  /** A few of the wrong ones, for the failure message. */
  samples: string[]
}

export interface LoadReport {
  /** Requests written to the sockets. */
  sent: number
  /** Complete responses received. */
  responses: number
  errors: number
  timeouts: number
  /** Responses per status code. */
  statusCodes: Record<string, number>
  perTarget: Record<string, TargetTally>
  durationSeconds: number
  requestsPerSecond: number
  latencyP99Ms: number
  latencyMaxMs: number
}

/** The parts of autocannon's connection object (lib/httpClient.js) the drain relies on. */
interface AutocannonClient {
  reqsMade: number
  pipelinedRequests: { size(): number }
  destroy(): void
  _doRequest(...args: unknown[]): void
}

export async function runLoad(origin: string, targets: readonly Target[], options: LoadOptions): Promise<LoadReport> {
  const perTarget: Record<string, TargetTally> = {}
  const statusCodes: Record<string, number> = {}
  let responses = 0
  const clients: AutocannonClient[] = []
  let draining = false

  const requests = targets.map((target) => {
    const tally: TargetTally = { responses: 0, wrongStatus: 0, mismatches: 0, samples: [] }
    perTarget[target.name] = tally
    return {
      method: 'GET',
      path: target.path,
      ...(target.headers ? { headers: target.headers } : {}),
      onResponse(status: number, body: string, _context: Record<string, unknown>, headers: Record<string, string>) {
        responses += 1
        tally.responses += 1
        statusCodes[status] = (statusCodes[status] ?? 0) + 1
        const fault = status !== target.status ? 'status' : target.check(body, headers) ? undefined : 'body'
        if (!fault) return
        if (fault === 'status') tally.wrongStatus += 1
        else tally.mismatches += 1
        if (tally.samples.length < 3 || (fault === 'body' && tally.mismatches === 1))
          tally.samples.push(`${fault}: ${status} ${body.slice(0, 200)}`)
      },
    }
  })

  const instance = autocannon({
    url: origin,
    connections: options.connections,
    pipelining: options.pipelining,
    duration: options.seconds + options.drainSeconds,
    timeout: options.timeoutSeconds,
    requests,
    setupClient(client: AutocannonClient) {
      clients.push(client)
      const sendNext = client._doRequest.bind(client)
      client._doRequest = function sendUnlessDraining(...args: unknown[]) {
        if (!draining) return sendNext(...args)
        if (client.pipelinedRequests.size() === 0) client.destroy()
      }
    },
  } as autocannon.Options)
  const drainTimer = setTimeout(() => {
    draining = true
    // A connection that is between requests gets no response to wake it: close the idle ones now.
    for (const client of clients) if (client.pipelinedRequests.size() === 0) client.destroy()
  }, options.seconds * 1000)
  let result: autocannon.Result
  try {
    result = await instance
  } finally {
    clearTimeout(drainTimer)
  }
  return {
    sent: clients.reduce((sum, client) => sum + client.reqsMade, 0),
    responses,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    perTarget,
    durationSeconds: result.duration,
    requestsPerSecond: Math.round(responses / result.duration),
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
  }
}
