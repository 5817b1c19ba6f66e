import { defineLoader } from '../../../client/page.ts'
import type { DynamicData } from './test-dynamic.tsx'

export const load = defineLoader<DynamicData>(({ deploymentId }) => ({ props: { deploymentId } }))
