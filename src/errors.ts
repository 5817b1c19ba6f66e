import createError from '@fastify/error'

/** Courier's coded errors: `COURIER_ERR_<AREA>_<WHAT>` with the status a request sees. Tests assert the codes. */
export const errors = {
  BuildMissing: createError(
    'COURIER_ERR_BUILD_MISSING',
    'No production build at %s: run `npm run build` (or `npm start`, which builds when needed)',
    500,
  ),
  /** A page of the site has no code chunk in the build: a build of other sources (`npm run build:test` makes the
   * test pages' chunks). */
  BuildIncomplete: createError('COURIER_ERR_BUILD_INCOMPLETE', 'The build at %s has no code for page %s: %s', 500),
  /** The compiled server was built beside another client build than the one at DIST_DIR (src/build/server-build.ts). */
  BuildMismatch: createError(
    'COURIER_ERR_BUILD_MISMATCH',
    'The server was built with deployment %s but the build at %s is %s: run `npm run build` (or `npm start`)',
    500,
  ),
  /** COURIER_TEST_ROUTES on a production build's server: it holds no test page (`npm run build:test` makes one). */
  TestRoutesUnavailable: createError(
    'COURIER_ERR_TEST_ROUTES_UNAVAILABLE',
    'COURIER_TEST_ROUTES needs the test build (npm run build:test, dist-test/node/server.js) or the TypeScript ' +
      'sources; this server is a production build',
    500,
  ),
  /** A page module or its server half breaks the convention of docs/your-site.md: its file and what is wrong. */
  PageModuleInvalid: createError('COURIER_ERR_PAGE_MODULE_INVALID', '%s: %s', 500),
  /** A file of the site's routes folder that is no route plugin (docs/your-routes.md): the file and what is wrong. */
  SiteRouteInvalid: createError('COURIER_ERR_SITE_ROUTE_INVALID', '%s: %s', 500),
  /** A loader whose answer is kept for every visitor read the request: refused, so no visitor's data is shared. */
  PageRequestInKeptLoader: createError(
    'COURIER_ERR_PAGE_REQUEST_IN_KEPT_LOADER',
    "Page %s: a kept page's loader read the request; a per-user page is dynamic, with defineRequestLoader",
    500,
  ),
  /** A document was asked for before @fastify/vite handed over the template or the SSR module (or the dev server
   * failed to): the error page falls back to plain HTML. */
  DocumentSourceNotReady: createError(
    'COURIER_ERR_DOCUMENT_SOURCE_NOT_READY',
    'No %s to render documents with yet',
    500,
  ),
  DeploymentMismatch: createError(
    'COURIER_ERR_DEPLOYMENT_MISMATCH',
    'DEPLOYMENT_ID is %s but the build at hand was made as %s: rebuild with this id',
    500,
  ),
  /** A request that arrived while the server drains for shutdown (plugins/drain.ts). */
  ServerClosing: createError('COURIER_ERR_SERVER_CLOSING', 'The server is shutting down', 503),
  MethodNotAllowed: createError('COURIER_ERR_METHOD_NOT_ALLOWED', '%s is not allowed on %s', 405),
  /** A page's action takes forms: urlencoded, or multipart without files (docs/forms.md). */
  FormMediaType: createError(
    'COURIER_ERR_FORM_MEDIA_TYPE',
    'A form is sent as application/x-www-form-urlencoded or multipart/form-data without files',
    415,
  ),
  FormMalformed: createError('COURIER_ERR_FORM_MALFORMED', 'The form could not be read: %s', 400),
  ClientErrorMediaType: createError(
    'COURIER_ERR_CLIENT_ERROR_MEDIA_TYPE',
    'Client error reports must be sent as application/json',
    415,
  ),
  ClientErrorRateLimited: createError(
    'COURIER_ERR_CLIENT_ERROR_RATE_LIMITED',
    'Too many client error reports: retry in %s',
    429,
  ),
  DataDeploymentSkew: createError(
    'COURIER_ERR_DATA_DEPLOYMENT_SKEW',
    'This server runs deployment %s; the page data asked for belongs to %s',
    409,
  ),
  FilterPathInvalid: createError('COURIER_ERR_FILTER_PATH_INVALID', 'The request path is not accepted: %s', 400),
  /** The session store (SESSION_REDIS_URL) did not answer: a request that needed to write a session waits and retries. */
  SessionStoreDown: createError('COURIER_ERR_SESSION_STORE_DOWN', 'Sessions are unavailable: %s', 503),
  /** A session written where there is no answer to set its cookie on (a policy step): pass the reply. */
  SessionNeedsReply: createError(
    'COURIER_ERR_SESSION_NEEDS_REPLY',
    'A session is written with the reply its cookie goes on: pageRequestOf(request, reply)',
    500,
  ),
  /** `signIn`/`signOut` where no session plugin is registered (an app without sessions, a plugin tested alone). */
  SessionsOff: createError('COURIER_ERR_SESSIONS_OFF', 'Sessions are not set up on this server', 500),
  /** An unsafe method from another site's page (docs/forms.md "Cross-site requests"): the origin it came from. */
  CrossSiteRefused: createError('COURIER_ERR_CROSS_SITE_REFUSED', 'A %s from another site (%s) is refused', 403),
  FilterResponded: createError('COURIER_ERR_FILTER_RESPONDED', 'The site policy answered this request', 403),
  /** Node's parser refused the request: malformed, or framed in a way it cannot read (src/connection-errors.ts). */
  BadRequest: createError('COURIER_ERR_BAD_REQUEST', 'The request is malformed', 400),
  HeaderTooLarge: createError('COURIER_ERR_HEADER_TOO_LARGE', 'The request headers are too large', 431),
  RequestTimeout: createError('COURIER_ERR_REQUEST_TIMEOUT', 'The request did not arrive in time', 408),
  /** No route and no page for the path (plugins/errors.ts, the not-found handler). */
  // Made for every 404 answer: no stack trace to capture, it is never thrown.
  NotFound: createError('COURIER_ERR_NOT_FOUND', '%s %s was not found', 404, Error, false),
  /** A failure that carries no code of its own: its answer says this, its log line says the rest. */
  Internal: createError('COURIER_ERR_INTERNAL', 'Internal Server Error', 500),
  OptionInvalid: createError('COURIER_ERR_OPTION_INVALID', 'Invalid option %s: %s', 500, TypeError),
  /** GET /_next/image: a query parameter is missing, repeated or out of range (the message names it). */
  ImageQueryInvalid: createError('COURIER_ERR_IMAGE_QUERY_INVALID', '%s', 400),
  /** GET /_next/image: `url` is not one the optimizer may load (scheme, host, traversal, itself). */
  ImageUrlRefused: createError('COURIER_ERR_IMAGE_URL_REFUSED', '%s', 400),
  ImageNotFound: createError('COURIER_ERR_IMAGE_NOT_FOUND', 'url %s was not found', 404),
  /** The bytes are not an image the optimizer handles (sniffed, never from the extension), or SVG while refused. */
  ImageNotAnImage: createError('COURIER_ERR_IMAGE_NOT_AN_IMAGE', '%s', 400),
  ImageTooLarge: createError('COURIER_ERR_IMAGE_TOO_LARGE', 'url declares %s pixels; at most %s are decoded', 400),
  ImageUnreadable: createError('COURIER_ERR_IMAGE_UNREADABLE', 'url points to an image that cannot be decoded', 400),
  /** The transform queue is full: 429 with `Retry-After`, not a 5xx, so a proxy never takes the busy optimizer for a
   * failing instance (deploy/nginx/courier.conf retries and counts 502/503/504, which would take every page down). */
  ImageBusy: createError('COURIER_ERR_IMAGE_BUSY', 'Too many images are being optimized; retry shortly', 429),
  ImageTransformTimeout: createError('COURIER_ERR_IMAGE_TRANSFORM_TIMEOUT', 'Optimizing the image took too long', 503),
  ImageUpstreamFailed: createError(
    'COURIER_ERR_IMAGE_UPSTREAM_FAILED',
    'The remote image could not be fetched: %s',
    502,
  ),
  ImageUpstreamTimeout: createError(
    'COURIER_ERR_IMAGE_UPSTREAM_TIMEOUT',
    'The remote image did not arrive in %s ms',
    504,
  ),
  /** A delta of the build (`<chunk>.<sha-256>.dcz`, docs/compression.md "Dictionaries") that is not one: a wrong
   * header, another dictionary's hash than its name says, no zstd frame, or no chunk beside it. Logged at start-up;
   * the chunk is served in its other codings. */
  DictionaryDeltaCorrupt: createError(
    'COURIER_ERR_DICTIONARY_DELTA_CORRUPT',
    'The dictionary delta %s is not usable: %s',
    500,
  ),
  /** A content file (CONTENT_DIR, docs/content.md) that cannot be used: front matter missing a field or not YAML, a
   * file too large, text outside a section. The page that reads it fails; a kept version of it stays served. */
  ContentInvalid: createError('COURIER_ERR_CONTENT_INVALID', 'Content file %s is invalid: %s', 500),
  /** CONTENT_DIR or a file in it cannot be read (missing folder, permissions): not a missing page, which is a 404. */
  ContentUnreadable: createError('COURIER_ERR_CONTENT_UNREADABLE', 'Content at %s cannot be read: %s', 500),
  /** POST /api/revalidate without `Authorization: Bearer <REVALIDATE_TOKEN>`, or with another token. */
  RevalidateUnauthorized: createError(
    'COURIER_ERR_REVALIDATE_UNAUTHORIZED',
    'A revalidation needs the bearer token REVALIDATE_TOKEN',
    401,
  ),
  RevalidateRateLimited: createError('COURIER_ERR_REVALIDATE_RATE_LIMITED', 'Too many revalidations: retry in %s', 429),
  /** A page action or a site route with a rate limit (docs/forms.md, docs/your-routes.md): the client spent its budget. */
  RateLimited: createError('COURIER_ERR_RATE_LIMITED', 'Too many requests: retry in %s', 429),
  /** Load shedding: the event loop is saturated; the request is refused before any work, with `Retry-After`. */
  ServerOverloaded: createError('COURIER_ERR_SERVER_OVERLOADED', 'The server is overloaded; retry shortly', 503),
} as const

/** The code of one of the errors above, for answers written without throwing (raw sockets, plain error pages). */
export function errorCode(ErrorType: (typeof errors)[keyof typeof errors]): string {
  return new ErrorType().code
}
