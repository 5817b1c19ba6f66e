import createError from '@fastify/error'

/** Courier's coded errors: `COURIER_ERR_<AREA>_<WHAT>` with the status a request sees. Tests assert the codes. */
export const errors = {
  BuildMissing: createError(
    'COURIER_ERR_BUILD_MISSING',
    'No production build at %s: run `npm run build` (or `npm start`, which builds when needed)',
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
  FilterResponded: createError('COURIER_ERR_FILTER_RESPONDED', 'The site policy answered this request', 403),
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
  ImageBusy: createError('COURIER_ERR_IMAGE_BUSY', 'Too many images are being optimized; retry shortly', 503),
  ImageTransformTimeout: createError('COURIER_ERR_IMAGE_TRANSFORM_TIMEOUT', 'Optimizing the image took too long', 503),
  ImageUpstreamFailed: createError('COURIER_ERR_IMAGE_UPSTREAM_FAILED', 'The remote image could not be fetched: %s', 502),
  ImageUpstreamTimeout: createError('COURIER_ERR_IMAGE_UPSTREAM_TIMEOUT', 'The remote image did not arrive in %s ms', 504),
  /** Load shedding: the event loop is saturated; the request is refused before any work, with `Retry-After`. */
  ServerOverloaded: createError('COURIER_ERR_SERVER_OVERLOADED', 'The server is overloaded; retry shortly', 503),
} as const
