import type { FastifyReply } from 'fastify'

/** Adds `field` to the response's `Vary`, once, keeping what is there (`Vary: Accept` of images, say). */
export function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary')
  if (current === undefined || current === '') {
    reply.header('vary', field)
    return
  }
  const fields = String(current)
    .toLowerCase()
    .split(',')
    .map((name) => name.trim())
  if (fields.includes('*') || fields.includes(field.toLowerCase())) return
  reply.header('vary', `${String(current)}, ${field}`)
}
