import { randomUUID } from 'node:crypto'
import { defineLoader } from '../../../client/page.ts'
import { testDelayMs } from '../test-loaders.ts'
import type { PartialKept, PartialLive } from './test-partial.tsx'

// Once per kept version: a revalidation of /__test/partial makes a new token, and a new shell.
export const keep = defineLoader<PartialKept>(() => ({ props: { keptToken: randomUUID() } }))

// Per request, after `?delay=` ms (`never`: it never answers); `?fail=1` throws.
export const load = defineLoader<PartialLive>(async ({ query }) => {
  const delayMs = testDelayMs(query.delay, 0)
  await new Promise((resolve) => (Number.isFinite(delayMs) ? setTimeout(resolve, delayMs) : undefined))
  if (query.fail === '1') throw new Error('a request-time loader failed on purpose (test route)')
  return { props: { requestToken: typeof query.token === 'string' ? query.token : 'none' } }
})
