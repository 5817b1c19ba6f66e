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
  DataMethodNotAllowed: createError('COURIER_ERR_DATA_METHOD_NOT_ALLOWED', 'Page data answers GET and HEAD, not %s', 405),
  OptionInvalid: createError('COURIER_ERR_OPTION_INVALID', 'Invalid option %s: %s', 500, TypeError),
} as const
