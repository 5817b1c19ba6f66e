import t from 'tap'
import { Semaphore } from '../../src/toolbox/semaphore.ts'

const turn = () => new Promise((resolve) => setImmediate(resolve))

t.test('a waiter that gives up leaves the queue; a place it was granted goes to the next', async (t) => {
  const slots = new Semaphore({ max: 1 })
  const first = slots.acquire()
  const release = await first.granted
  const second = slots.acquire()
  const third = slots.acquire()
  t.equal(slots.queued, 2)
  second.cancel()
  t.equal(slots.queued, 1, 'the cancelled waiter left the queue')
  release()
  const releaseThird = await third.granted
  t.equal(slots.running, 1, 'the place passed to the third, never freed in between')
  releaseThird()
  releaseThird()
  t.equal(slots.running, 0, 'a second release does nothing')
  const late = slots.acquire()
  late.cancel()
  t.equal(slots.running, 0, 'cancelling a granted ticket releases it')
})

t.test('busy: beyond the queue and beyond a key share, refused at once with the given error', async (t) => {
  const slots = new Semaphore({ max: 1, maxQueued: 1, maxPerKey: 2, busy: () => new Error('full') })
  const held = await slots.acquire('a').granted
  const waiting = slots.acquire('a')
  await t.rejects(slots.acquire('a').granted, { message: 'full' }, 'a third place for key a')
  await t.rejects(slots.acquire('b').granted, { message: 'full' }, 'the queue is full')
  held()
  ;(await waiting.granted)()
  await turn()
  t.equal(slots.running, 0)
  t.equal(slots.queued, 0)
  t.equal(await slots.run(async () => 'ran', 'b'), 'ran', 'free again')
})
