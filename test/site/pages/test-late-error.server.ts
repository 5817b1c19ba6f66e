import { defineLoader } from '../../../client/page.ts'
import { testDelayMs } from '../test-loaders.ts'
import type { LateErrorData } from './test-late-error.tsx'

export const load = defineLoader<LateErrorData>(({ query }) => ({ props: { delayMs: testDelayMs(query.delay, 100) } }))
