import { defineLoader } from '../../../client/page.ts'
import { testDelayMs } from '../test-loaders.ts'
import type { SlowData } from './test-slow.tsx'

export const load = defineLoader<SlowData>(({ query }) => ({ props: { delayMs: testDelayMs(query.delay, 300) } }))
