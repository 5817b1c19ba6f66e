import t from 'tap'
import {
  AbArgumentError,
  abFloor,
  compareRuns,
  formatAbTable,
  needsRerun,
  parseAbArguments,
  sidesInPass,
  verdictOf,
} from '../../bench/ab-options.ts'

t.test('the arguments: none is the side-by-side run, --ab names the other checkout', async (t) => {
  t.equal(parseAbArguments([]), undefined, 'no argument: the usual run')
  t.same(parseAbArguments(['--ab', 'main']), { other: 'main' })
  t.same(parseAbArguments(['--ab=HEAD~3']), { other: 'HEAD~3' })
  t.same(parseAbArguments(['--ab', '../courier-main']), { other: '../courier-main' }, 'a folder')
})

t.test('bad arguments stop the run before it starts, saying what is wrong', async (t) => {
  t.throws(() => parseAbArguments(['--ab']), { name: 'AbArgumentError', message: /--ab needs the other checkout/ })
  t.throws(() => parseAbArguments(['--ab=']), AbArgumentError, 'an empty value')
  const needsCheckout = { message: /--ab needs the other checkout/ }
  t.throws(() => parseAbArguments(['--ab', '--fast']), needsCheckout, 'a flag is no checkout')
  t.throws(() => parseAbArguments(['--ab', 'main', '--ab', 'v1']), { message: /given once/ })
  t.throws(() => parseAbArguments(['main']), { message: /unknown argument "main"/ })
  t.throws(() => parseAbArguments(['--abc', 'main']), { message: /unknown argument "--abc"/ })
})

t.test('the side that goes first alternates pass by pass', async (t) => {
  t.same(sidesInPass(1), ['before', 'after'])
  t.same(sidesInPass(2), ['after', 'before'])
  t.same(sidesInPass(3), ['before', 'after'])
  const firsts = [1, 2, 3, 4].map((pass) => sidesInPass(pass)[0])
  t.equal(firsts.filter((side) => side === 'after').length, 2, 'each side first in half of an even number of passes')
})

t.test('after ÷ before is the ratio of the medians of the passes', async (t) => {
  const comparison = compareRuns({ target: 'Courier /', before: [1000, 3000, 2000], after: [1900, 100, 2100] })
  t.same(comparison, { target: 'Courier /', beforeRps: 2000, afterRps: 1900, ratio: 0.95, passes: 3 })
  t.notOk(needsRerun(comparison), 'exactly 0.95 is not under the floor')
  const slower = compareRuns({ target: 'Courier 404', before: [1000, 1000, 1000], after: [940, 2000, 900] })
  t.equal(slower.ratio, 0.94)
  t.ok(needsRerun(slower), 'under 0.95: run again')
  t.equal(abFloor, 0.95)
})

t.test('a target without passes on a side has no ratio and is not run again', async (t) => {
  const comparison = compareRuns({ target: 'Courier image (cache hit)', before: [], after: [5000] })
  t.equal(comparison.ratio, null)
  t.equal(comparison.passes, 0)
  t.notOk(needsRerun(comparison))
})

t.test('the re-run decides, and the table says so', async (t) => {
  const first = compareRuns({ target: 'Courier /status', before: [100, 100, 100], after: [90, 90, 90] })
  const rerun = compareRuns({ target: 'Courier /status', before: [100, 100, 100], after: [99, 98, 97] })
  const steady = { first: compareRuns({ target: 'Courier /', before: [10, 10, 10], after: [11, 11, 11] }) }
  t.equal(verdictOf({ first, rerun }), rerun)
  t.equal(verdictOf(steady), steady.first)
  const table = formatAbTable([steady, { first, rerun }])
  t.match(table, /\| Courier \/ \| 10\.0 \| 11\.0 \| 1\.100 \|  \| met \|/)
  const metOnRerun = /\| Courier \/status \| 100\.0 \| 90\.0 \| 0\.900 \| 0\.980 \| met \|/
  t.match(table, metOnRerun, 'under the floor once, met on the re-run')
  t.match(table, /Lowest after ÷ before: 0\.980 \(goal >= 0\.95\)/)
  const failed = formatAbTable([{ first, rerun: first }])
  t.match(failed, /\| 0\.900 \| 0\.900 \| not met \|/, 'under the floor twice: not met')
})
