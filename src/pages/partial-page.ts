import type { FastifyBaseLogger } from 'fastify'
import type { LiveData, Loader, LoaderContext, PageDefinition } from '../../site/page-types.ts'
import { assignDigest } from '../digest.ts'
import type { ServerPage } from './site.ts'

/** The request-time loader of a partly prerendered page answered something else than props (not-found, a redirect). */
export class LiveAnswerError extends Error {
  override name = 'LiveAnswerError'
}

/** The request-time loader of a partly prerendered page did not answer in time. */
export class LiveTimeoutError extends Error {
  override name = 'LiveTimeoutError'
}

/**
 * A partly prerendered page as the server holds it (site/page-types.ts `PartialServerSide`): its kept data is a
 * `static` page of its own (same id and path, so it is kept, shared by the fleet and revalidated as any static page
 * instance is: src/pages/answers.ts), and its `load`, which the page-data route calls, gives both kinds of data, as
 * the component reads them (`PartialData`). The kept loader sees no query, as a static page's.
 */
export function joinPartialPage(
  page: PageDefinition,
  keep: Loader<unknown>,
  live: Loader<unknown> | undefined,
): ServerPage {
  const { id, path, revalidate, head } = page
  const kept: ServerPage = { id, path, kind: 'static', revalidate, head, load: keep }
  const liveLoader: Loader<unknown> = live ?? (() => ({ props: {} }))
  return {
    ...page,
    partial: { kept, live: liveLoader },
    load: async (context) => {
      const keptAnswer = await keep({ ...context, query: {} })
      if (!('props' in keptAnswer)) return keptAnswer
      const liveAnswer = await liveLoader(context)
      if (!('props' in liveAnswer)) throw new LiveAnswerError('a request-time loader may only answer props')
      return { props: { kept: keptAnswer.props, live: { value: liveAnswer.props } }, tags: keptAnswer.tags ?? [] }
    },
  }
}

/**
 * Runs a partly prerendered page's request-time loader for one request: its props, or its failure (it threw, timed
 * out, or answered not-found or a redirect, which a page whose shell is out with a 200 cannot honour) as the digest
 * of its log line. Never rejects: the holes render either.
 */
export async function loadLiveData(
  live: Loader<unknown>,
  context: LoaderContext,
  timeoutMs: number,
  request: { log: FastifyBaseLogger; id: string; host: string },
): Promise<LiveData<unknown>> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    const error = () => new LiveTimeoutError(`the request-time loader did not answer in ${timeoutMs} ms`)
    timer = setTimeout(() => reject(error()), timeoutMs)
    // The request holds its socket; a time-out alone keeps no process alive.
    timer.unref()
  })
  try {
    const answer = await Promise.race([Promise.resolve().then(() => live(context)), timeout])
    if (!('props' in answer)) throw new LiveAnswerError('a request-time loader may only answer props')
    return { value: answer.props }
  } catch (error) {
    const { digest } = assignDigest(error, request.id)
    request.log.error({ err: error, digest }, 'request-time data failed')
    return { failed: { digest, host: request.host } }
  } finally {
    clearTimeout(timer)
  }
}
