import t from 'tap'
import { cpuPinning, expandCpuList, pinnedCommand } from '../../bench/cpu-pinning.ts'

t.test("taskset's CPU lists", async (t) => {
  t.same(expandCpuList('0,1'), [0, 1])
  t.same(expandCpuList('2-4,7'), [2, 3, 4, 7])
  t.same(expandCpuList('5'), [5])
  t.same(expandCpuList(''), [], 'nothing read: no CPUs')
  t.same(expandCpuList('3-1,x'), [], 'what is not a list gives no CPUs')
})

t.test('the pinning takes two CPUs this process may run on, or none', async (t) => {
  const pinning = cpuPinning()
  if (pinning === undefined) return t.pass('one CPU or no taskset here: nothing to pin')
  t.not(pinning.server, pinning.load, 'server and load on different CPUs')
  t.same(pinnedCommand(pinning.server, 'node', ['x.js']), ['taskset', ['--cpu-list', pinning.server, 'node', 'x.js']])
})

t.test('unpinned, the command is left as it is', async (t) => {
  t.same(pinnedCommand(undefined, 'node', ['x.js']), ['node', ['x.js']])
})
