import { defineLoader } from '../../client/page.ts'
import { readProcessMemory } from '../../src/pages/process-memory.ts'

// Kept with the prerendered shell: the same for the whole deployment.
export const keep = defineLoader(({ deploymentId }) => ({ props: { deploymentId, nodeVersion: process.version } }))

// Per request, into the shell's holes.
export const load = defineLoader(() => ({
  props: { serverTime: new Date().toISOString(), uptimeS: process.uptime(), memory: readProcessMemory() },
}))
