import t from 'tap'
import { processMemory } from '../../config/server.ts'
import { readProcessMemory } from '../../src/pages/process-memory.ts'

const mebibyte = 1024 * 1024

t.test('the figures are what process.memoryUsage() reports', async (t) => {
  const read = readProcessMemory()
  const reference = process.memoryUsage()
  t.ok(read.rss > 10 * mebibyte, `rss ${read.rss}`)
  t.ok(Math.abs(read.rss - reference.rss) < 16 * mebibyte, 'rss within a few MiB of memoryUsage().rss')
  t.ok(read.heapUsed > 0 && read.heapUsed <= read.heapTotal, 'heap used within the heap')
  t.ok(Math.abs(read.heapTotal - reference.heapTotal) < 16 * mebibyte, 'heap total as memoryUsage() has it')
})

t.test('the resident set size is read again once it is older than the configured age, not before', async (t) => {
  const start = 1e12 // later than any reading of this process: the first call reads
  const first = readProcessMemory(start).rss
  const ballast = Buffer.alloc(64 * mebibyte, 1) // touched pages: the resident set grows
  t.equal(readProcessMemory(start + processMemory.rssMaxAgeMs - 1).rss, first, 'within the age: the kept reading')
  const later = readProcessMemory(start + processMemory.rssMaxAgeMs).rss
  t.ok(later > first + 32 * mebibyte, `after the age: read again (${first} then ${later})`)
  t.equal(ballast.length, 64 * mebibyte)
})

t.test('heap figures are per call', async (t) => {
  const now = 2e12
  readProcessMemory(now)
  const before = readProcessMemory(now).heapUsed
  // Tens of MiB kept alive: far more than a collection during the allocation could free of older garbage, so the
  // figure grows whatever the collector does meanwhile.
  const kept = Array.from({ length: 1_000_000 }, (_, index) => ({ index }))
  const after = readProcessMemory(now).heapUsed
  t.ok(
    after > before + 8 * mebibyte,
    `heap used grows with what is allocated, at the same instant (${before} then ${after})`,
  )
  t.equal(kept.length, 1_000_000)
})
