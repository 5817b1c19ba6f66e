import t from 'tap'
import { readFileSync } from 'node:fs'
import { blockEnd, blockStart, ReadmeBlockError, rewriteBlock } from '../../bench/readme-block.ts'

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

t.test("the project's README has exactly one results block", async (t) => {
  const project = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  t.doesNotThrow(() => rewriteBlock(project, 'x'))
})
