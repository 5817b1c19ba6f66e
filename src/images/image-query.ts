import type { FastifyRequest } from 'fastify'
import { allowedWidths, images, imageOptimizer } from '../../config/images.ts'
import { errors } from '../errors.ts'

/** The query string of `GET /_next/image` once its schema has passed it. */
export interface ImageQuery {
  url: string
  w: number
  q?: number
}

/** `url`, `w` from the allowed widths, `q` from the allowed qualities (config/images.ts). */
export const imageQuerySchema = {
  type: 'object',
  required: ['url', 'w'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: imageOptimizer.maxUrlLength },
    w: { type: 'integer', enum: allowedWidths },
    q: { type: 'integer', enum: images.qualities },
  },
} as const

interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
}

/** One sentence per parameter, naming it, whatever rule of the schema it broke. */
function describeQueryError(error: SchemaError | undefined): string {
  const name = error?.keyword === 'required' ? String(error.params.missingProperty) : error?.instancePath.slice(1)
  if (error?.keyword === 'required') return `${name} is required`
  switch (name) {
    case 'url':
      if (error?.keyword === 'maxLength') return `url must be at most ${imageOptimizer.maxUrlLength} characters`
      if (error?.keyword === 'minLength') return 'url must not be empty'
      return 'url must be given once'
    case 'w':
      return `w must be one of the allowed widths: ${allowedWidths.join(', ')}`
    case 'q':
      return `q must be one of the allowed qualities: ${images.qualities.join(', ')}`
    default:
      return 'the query string is invalid'
  }
}

/** The route's `schemaErrorFormatter`: COURIER_ERR_IMAGE_QUERY_INVALID with the first broken parameter's sentence. */
export function imageQueryErrorFormatter(schemaErrors: SchemaError[]): Error {
  return new errors.ImageQueryInvalid(describeQueryError(schemaErrors[0]))
}

/** Repeated parameters arrive as arrays: refused before the schema turns them into a less clear message. */
export async function refuseRepeatedParameters(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>
  for (const name of ['url', 'w', 'q']) {
    if (Array.isArray(query[name])) throw new errors.ImageQueryInvalid(`${name} must be given once`)
  }
}
