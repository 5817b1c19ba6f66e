import t from 'tap'
import { withTimeOut } from '../../src/toolbox/time-out.ts'

const never = () => new Promise<never>(() => undefined)

t.test('work that settles in time is its own answer; its failure too', async (t) => {
  t.equal(await withTimeOut(Promise.resolve(1), 50, () => new Error('late')), 1)
  await t.rejects(
    withTimeOut(Promise.reject(new Error('broken')), 50, () => new Error('late')),
    { message: 'broken' },
  )
  t.equal(await withTimeOut(Promise.resolve(2), Number.POSITIVE_INFINITY, () => new Error('late')), 2, 'no limit')
})

t.test('work that has not settled fails with the time-out, told once; a late failure is not reported', async (t) => {
  let told = 0
  let fail: (error: Error) => void = () => undefined
  const work = new Promise<never>((_resolve, reject) => (fail = reject))
  await t.rejects(
    withTimeOut(work, 10, () => new Error('late'), { onTimeOut: () => told++ }),
    { message: 'late' },
  )
  t.equal(told, 1)
  fail(new Error('after the time-out'))
  await new Promise((resolve) => setTimeout(resolve, 5))
  await t.rejects(
    withTimeOut(never(), 5, () => new Error('late'), { forgiveLateTimer: true }),
    { message: 'late' },
  )
})

t.test(
  'forgiveLateTimer: a timer late because the process was held up gives the work its time once more',
  async (t) => {
    let answer: (value: string) => void = () => undefined
    const work = new Promise<string>((resolve) => (answer = resolve))
    const bounded = withTimeOut(work, 20, () => new Error('late'), { forgiveLateTimer: true })
    const until = performance.now() + 60
    while (performance.now() < until) {
      // The event loop held up three times the limit.
    }
    setTimeout(() => answer('in time'), 5)
    t.equal(await bounded, 'in time', 'answered within the second chance')
    let strictAnswer: (value: string) => void = () => undefined
    const strict = withTimeOut(new Promise<string>((resolve) => (strictAnswer = resolve)), 20, () => new Error('late'))
    const strictUntil = performance.now() + 60
    while (performance.now() < strictUntil) {
      // Held up again, without forgiveness.
    }
    setTimeout(() => strictAnswer('too late'), 5)
    await t.rejects(strict, { message: 'late' }, 'without it, the late timer fails the work')
  },
)
