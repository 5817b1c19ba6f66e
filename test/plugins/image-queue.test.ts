import t from 'tap'
import { TransformQueue } from '../../src/images/transform-queue.ts'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((settle) => (resolve = settle))
  return { promise, resolve }
}

t.test('at most N transforms run at once; the rest wait in order; beyond the queue, 503', async (t) => {
  const queue = new TransformQueue(2, 2)
  const gates = [deferred(), deferred(), deferred(), deferred()]
  const started: number[] = []
  let running = 0
  let mostAtOnce = 0
  const tasks = gates.map((gate, index) =>
    queue.run(async () => {
      started.push(index)
      running += 1
      mostAtOnce = Math.max(mostAtOnce, running)
      await gate.promise
      running -= 1
      return index
    }),
  )
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, [0, 1], 'two started')
  t.equal(queue.queued, 2, 'two wait')
  await t.rejects(queue.run(async () => 99), { code: 'COURIER_ERR_IMAGE_BUSY', statusCode: 503 }, 'a fifth is refused')

  gates[1]!.resolve()
  await tasks[1]
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, [0, 1, 2], 'the first waiter takes the freed slot')
  for (const gate of gates) gate.resolve()
  t.same(await Promise.all(tasks), [0, 1, 2, 3])
  t.equal(mostAtOnce, 2, 'never more than two at once')
  t.equal(queue.running, 0)
  t.equal(queue.queued, 0)
})

t.test('a failing transform frees its slot', async (t) => {
  const queue = new TransformQueue(1, 1)
  await t.rejects(queue.run(async () => Promise.reject(new Error('broken'))), { message: 'broken' })
  t.equal(await queue.run(async () => 'next'), 'next')
  t.equal(queue.running, 0)
})

t.test('one client holds at most its share of running and waiting transforms; waiters are served client by client', async (t) => {
  const queue = new TransformQueue(1, 10, 3)
  const gate = deferred()
  const order: string[] = []
  const task = (name: string) => async () => {
    order.push(name)
    await gate.promise
    return name
  }
  const flood = ['a1', 'a2', 'a3'].map((name) => queue.run(task(name), 'client-a'))
  await t.rejects(queue.run(task('a4'), 'client-a'), { code: 'COURIER_ERR_IMAGE_BUSY' }, 'a fourth from the same client is refused')
  const others = [queue.run(task('b1'), 'client-b'), queue.run(task('c1'), 'client-c')]
  t.equal(queue.queued, 4, 'the other clients still queue')
  gate.resolve()
  await Promise.all([...flood, ...others])
  t.same(order, ['a1', 'b1', 'c1', 'a2', 'a3'], 'after a1, the next client in turn, not the flooding one')
  t.equal(queue.running, 0)
  t.equal(queue.queued, 0)
})
