import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import { processMemory } from '../../config/server.ts'

export interface ProcessMemory {
  rss: number
  heapUsed: number
  heapTotal: number
}

let rss = 0
let rssReadAt = Number.NEGATIVE_INFINITY

/**
 * What `process.memoryUsage()` reports for rss, heapUsed and heapTotal, without its cost on every call: the heap
 * figures are V8's own (the same numbers memoryUsage() reads), the resident set size is read from the kernel at most
 * every `processMemory.rssMaxAgeMs` (config/server.ts says why).
 */
export function readProcessMemory(now = performance.now()): ProcessMemory {
  if (now - rssReadAt >= processMemory.rssMaxAgeMs) {
    rss = process.memoryUsage.rss()
    rssReadAt = now
  }
  const heap = v8.getHeapStatistics()
  return { rss, heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size }
}
