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
  FilterPathInvalid: createError('COURIER_ERR_FILTER_PATH_INVALID', 'The request path is not accepted: %s', 400),
  FilterResponded: createError('COURIER_ERR_FILTER_RESPONDED', 'The site policy answered this request', 403),
  OptionInvalid: createError('COURIER_ERR_OPTION_INVALID', 'Invalid option %s: %s', 500, TypeError),
} as const
