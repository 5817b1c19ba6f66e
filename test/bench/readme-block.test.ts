import t from 'tap'
import { readFileSync } from 'node:fs'
import {
  blockEnd,
  blockStart,
  buildBlockMarkers,
  lighthouseBlockMarkers,
  ReadmeBlockError,
  rewriteBlock,
} from '../../bench/readme-block.ts'

const readme = `# Title\n\n## Benchmarks\n\nBefore.\n\n${blockStart}\nold table\n${blockEnd}\n\nAfter.\n`

t.test('the block between the markers is replaced, the rest kept byte for byte', async (t) => {
  const rewritten = rewriteBlock(readme, '| new | table |\n')
  t.equal(rewritten, `# Title\n\n## Benchmarks\n\nBefore.\n\n${blockStart}\n| new | table |\n${blockEnd}\n\nAfter.\n`)
})

t.test('rewriting is idempotent', async (t) => {
  const once = rewriteBlock(readme, 'results')
  t.equal(rewriteBlock(once, 'results'), once)
})

t.test('a README without the markers, or with two blocks, is refused', async (t) => {
  t.throws(() => rewriteBlock('# Title\n', 'x'), ReadmeBlockError)
  t.throws(() => rewriteBlock(`${blockEnd}\n${blockStart}\n`, 'x'), ReadmeBlockError)
  t.throws(() => rewriteBlock(readme + readme, 'x'), ReadmeBlockError)
})

t.test('docs/benchmarks.md has exactly one block of each bench that writes one', async (t) => {
  const page = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8')
  t.doesNotThrow(() => rewriteBlock(page, 'x'), 'npm run bench')
  t.doesNotThrow(() => rewriteBlock(page, 'x', buildBlockMarkers), 'npm run bench:build')
  t.doesNotThrow(() => rewriteBlock(page, 'x', lighthouseBlockMarkers), 'npm run lighthouse')
})
