import type { FastifyBaseLogger } from 'fastify'
import type { PageAnswer } from '../common/page-data.ts'
import type { LiveData, Loader, LoaderAnswer, LoaderContext, PageDefinition } from '../common/page-types.ts'
import { assignDigest } from '../digest.ts'
import { withTimeOut } from '../toolbox/time-out.ts'
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
 * A partly prerendered page as the server holds it (src/common/page-types.ts `PartialServerSide`): its kept data is a
 * `static` page of its own (same id and path, so it is kept, shared by the fleet and revalidated as any static page
 * instance is: src/pages/page-versions.ts); its `livePage` is its request-time loader alone, which the page-data
 * route runs per navigation beside the kept version's data (`joinPartialAnswers`); its `load` gives both kinds of
 * data, as the component reads them (`PartialData`). The kept loader sees no query, as a static page's.
 */
export function joinPartialPage(
  page: PageDefinition,
  keep: Loader<unknown>,
  live: Loader<unknown> | undefined,
): ServerPage {
  const { id, path, revalidate, head } = page
  const kept: ServerPage = { id, path, kind: 'static', revalidate, head, load: keep }
  const liveLoader: Loader<unknown> = live ?? (() => ({ props: {} }))
  const livePage: ServerPage = { ...page, kind: 'dynamic', load: liveLoader }
  return {
    ...page,
    partial: { kept, live: liveLoader, livePage },
    load: async (context) => joinPartialAnswers(await keep({ ...context, query: {} }), () => liveLoader(context)),
  }
}

/**
 * A partly prerendered page's data as its component reads it (`PartialData`): its kept answer's props and the
 * request-time loader's (run only when the kept answer has props). The page-data route gives the kept answer of the
 * kept version, as the HTML route does: only the request-time loader runs per navigation.
 */
export async function joinPartialAnswers(
  keptAnswer: LoaderAnswer<unknown>,
  loadLive: () => LoaderAnswer<unknown> | Promise<LoaderAnswer<unknown>>,
): Promise<LoaderAnswer<unknown>> {
  if (!('props' in keptAnswer)) return keptAnswer
  const liveAnswer = await loadLive()
  if (!('props' in liveAnswer)) throw new LiveAnswerError('a request-time loader may only answer props')
  return { props: { kept: keptAnswer.props, live: { value: liveAnswer.props } }, tags: keptAnswer.tags ?? [] }
}

/**
 * Runs a partly prerendered page's request-time loader for one request: its props, or its failure (it threw, timed
 * out, or answered not-found or a redirect, which a page whose shell is out with a 200 cannot honour) as the digest
 * of its log line. Never rejects: the holes render either. A loader that fails after the client has gone is a debug
 * line (`clientGone`: the answer's connection closed before it ended).
 */
export async function loadLiveData(
  load: () => Promise<LoaderAnswer<unknown> | PageAnswer>,
  timeoutMs: number,
  request: { log: FastifyBaseLogger; id: string; host: string; clientGone: () => boolean },
): Promise<LiveData<unknown>> {
  try {
    const timedOut = () => new LiveTimeoutError(`the request-time loader did not answer in ${timeoutMs} ms`)
    // The request holds its socket; a time-out alone keeps no process alive.
    const answer = await withTimeOut(Promise.resolve().then(load), timeoutMs, timedOut, { ref: false })
    if (!('props' in answer)) throw new LiveAnswerError('a request-time loader may only answer props')
    return { value: answer.props }
  } catch (error) {
    // Nobody is left to show the failure to (the client closed the connection while the loader ran): not an error
    // of the site's, and no digest to look up.
    if (request.clientGone()) {
      const reason = error instanceof Error ? error.message : String(error)
      request.log.debug({ reason }, 'request-time data not needed: the client left')
      return { failed: { digest: '', host: request.host } }
    }
    const { digest } = assignDigest(error, request.id)
    request.log.error({ err: error, digest }, 'request-time data failed')
    return { failed: { digest, host: request.host } }
  }
}
