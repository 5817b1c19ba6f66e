/** The kinds of target the benches load, in the order they run, and BENCH_KINDS, which narrows a run to some. */
import type { TargetKind } from './targets.ts'

export const kindOrder: readonly TargetKind[] = Object.freeze([
  'static-page',
  'static-page+compressed',
  'guide-page',
  'guide-page+compressed',
  'dynamic-page',
  'dynamic-page+compressed',
  'static-data',
  'static-data+compressed',
  'dynamic-data',
  'dynamic-data+compressed',
  'not-found',
  'not-found+compressed',
  'image-hit',
  'robots',
])

/** BENCH_KINDS: the kinds of target to load (all when unset); a name that is no kind stops the run before it starts. */
export function selectedKinds(): Set<TargetKind> | undefined {
  const raw = process.env.BENCH_KINDS?.trim()
  if (!raw) return undefined
  const kinds = raw.split(',').map((kind) => kind.trim())
  const unknown = kinds.filter((kind) => !kindOrder.includes(kind as TargetKind))
  if (unknown.length) {
    throw new Error(`BENCH_KINDS names no kind of target: ${unknown.join(', ')} (kinds: ${kindOrder.join(', ')})`)
  }
  return new Set(kinds as TargetKind[])
}
