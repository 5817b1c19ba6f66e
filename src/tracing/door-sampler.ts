import type { TracingConfig } from '../../config/tracing.ts'

/**
 * Sampling at the door: a request that starts a new trace (it continues no trusted `traceparent`) is sampled or not
 * when it arrives, by the root rule of OTEL_TRACES_SAMPLER, before @fastify/otel sees it. One it turns away is not
 * instrumented at all: no span, no ids, no context (plugins/tracing.ts). @fastify/otel would otherwise start a
 * non-recording span for it, with its ids, context and hooks: most of what tracing at 10 % cost (docs/performance.md
 * "Sampled at the door"). The SDK's sampler then samples every root it is shown (src/tracing/sdk.ts); a request that
 * continues a trace is left to it, so the parent's decision (or the trace-id ratio) holds as before.
 *
 * For the ratio samplers the door draws a random number where the SDK would read the ratio off the new trace id: the
 * trace id of a root is random too, so the share sampled is the same, and every service after this one follows the
 * `sampled` flag it is sent.
 */
export function rootSampler(config: TracingConfig): () => boolean {
  switch (config.sampler) {
    case 'always_on':
    case 'parentbased_always_on':
      return () => true
    case 'always_off':
    case 'parentbased_always_off':
      return () => false
    case 'traceidratio':
    case 'parentbased_traceidratio': {
      const { ratio } = config
      return () => Math.random() < ratio
    }
  }
}

/** What @fastify/otel passes its `ignorePaths` function: a route as registered, or a request's url and method. */
export interface IgnoreCall {
  url: string
  method?: unknown
  handler?: unknown
}

/**
 * The door's decision, handed to @fastify/otel's `ignorePaths`. Fastify runs a request's `onRequest` hooks one after
 * the other in the same turn when each calls `done()` at once, so the door hook's decision (`admit`) is the one read
 * by @fastify/otel's request hook, registered right after it (`ignores`), and read once, whatever the answer. Any
 * later call for a request (the not-found handler's wrapper) finds no decision and is ignored: Courier's spans say
 * what each step did, a span per hook or handler would only add noise. A decision nobody reads (@fastify/otel reads
 * none while the SDK is shut down, at close) is replaced by the next request's at its door.
 */
export class DoorDecision {
  #pending: { url: string; traced: boolean } | undefined

  admit(url: string, traced: boolean): void {
    this.#pending = { url, traced }
  }

  /** `ignorePaths` for @fastify/otel: a route is wired unless `untraced` says so; a request goes as the door said. */
  ignores(call: IgnoreCall, untraced: (url: string) => boolean): boolean {
    // A route as registered: wire it (its span's end and error hooks) unless untraced, whatever its requests will be.
    if (call.handler !== undefined) return untraced(call.url)
    const pending = this.#pending
    this.#pending = undefined
    return pending === undefined || pending.url !== call.url || !pending.traced || untraced(call.url)
  }
}
