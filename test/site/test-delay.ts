/**
 * The test routes' timed promises, one per render (keyed by that render's data object): a module-level promise
 * would settle once and stop suspending after the first request.
 */
const pending = new WeakMap<object, Promise<void>>()

/**
 * Resolves `ms` after the first call for `key`, or rejects with `failure` when one is given; never settles when `ms`
 * is not finite (a render whose data never arrives).
 */
export function settleAfter(key: object, ms: number, failure?: Error): Promise<void> {
  let promise = pending.get(key)
  if (!promise) {
    promise = new Promise((resolve, reject) => {
      if (Number.isFinite(ms)) setTimeout(() => (failure ? reject(failure) : resolve()), ms)
    })
    pending.set(key, promise)
  }
  return promise
}
