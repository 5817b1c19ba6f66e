/**
 * Time to first byte under load: one client beside autocannon's connections asks for the target again and again, one
 * request at a time on a connection of its own, and times each from the request to the first byte of the answer (its
 * status line). What a visitor waits for before anything can paint while the server is busy with everyone else.
 */
import http from 'node:http'
import { createHistogram } from 'node:perf_hooks'

export interface TtfbProbe {
  /** Stops asking; the first-byte times of the answers that came, in milliseconds. */
  stop(): Promise<{ p50: number; p90: number; samples: number }>
}

export function startTtfbProbe(url: string, headers: Record<string, string> = {}): TtfbProbe {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const times = createHistogram()
  let stopped = false
  let finish: () => void = () => undefined
  const done = new Promise<void>((resolve) => (finish = resolve))

  function ask(): void {
    if (stopped) return finish()
    const started = process.hrtime.bigint()
    const request = http.get(url, { agent, headers }, (response) => {
      times.record(Math.max(1, Number((process.hrtime.bigint() - started) / 1000n)))
      response.resume()
      response.on('end', ask)
      response.on('error', ask)
    })
    request.on('error', () => setTimeout(ask, 10))
  }
  ask()

  return {
    async stop() {
      stopped = true
      await done
      agent.destroy()
      const ms = (percentile: number) => (times.count ? Number((times.percentile(percentile) / 1000).toFixed(2)) : 0)
      return { p50: ms(50), p90: ms(90), samples: times.count }
    },
  }
}
