/** A loader that did not answer within its time (config/content.ts loaderTimeoutMs). */
export class LoaderTimeoutError extends Error {
  override name = 'LoaderTimeoutError'
}

/**
 * `work`, failed with a LoaderTimeoutError when it has not settled within `timeoutMs` (infinite: never). A first load
 * is bounded like a regeneration: a loader that never answers fails its requests (500, with a digest) and the next
 * request tries again, instead of holding every request of the page until a restart.
 */
export function withLoaderTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  if (!Number.isFinite(timeoutMs)) return work
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new LoaderTimeoutError(`the loader did not answer in ${timeoutMs} ms`)), timeoutMs)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}
