/**
 * The part of autocannon 9's API the bench uses (the package ships no types). Source: node_modules/autocannon/README.md,
 * "API" and "Results"; lib/run.js for the `response` event's arguments.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      /** Called with every complete response (status and whole body), before the next request of the connection. */
      onResponse?: (
        status: number,
        body: string,
        context: Record<string, unknown>,
        headers: Record<string, string>,
      ) => void
    }

    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      /** Seconds before a request counts as a timeout (and an error). */
      timeout?: number
      pipelining?: number
      /** Requests per second over all connections, at most (a fixed load instead of as many as the server takes). */
      overallRate?: number
      title?: string
      requests?: Request[]
      headers?: Record<string, string>
    }

    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total: number
      p50: number
      p90: number
      p99: number
    }

    interface Result {
      title?: string
      url: string
      requests: Histogram
      latency: Histogram
      throughput: Histogram
      duration: number
      errors: number
      timeouts: number
      mismatches: number
      non2xx: number
      start: Date
      finish: Date
      statusCodeStats: Record<string, { count: number }>
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
      ): this
      on(event: 'done', listener: (result: Result) => void): this
      on(event: string, listener: (...args: unknown[]) => void): this
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance

  export = autocannon
}
