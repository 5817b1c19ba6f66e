import t from 'tap'
import { createHoleTurns } from '../../src/render/hole-turns.ts'

/** Keeps the thread busy for `ms`, as a resume's render does. */
function busy(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // a render's work
  }
}

t.test('resumes run in the order they were queued, each on a later turn', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1, backlogMs: 1000 })
  const order: string[] = []
  const done = new Promise<void>((resolve) => {
    for (const name of ['a', 'b', 'c', 'd']) turns.enqueue(() => (order.push(name), name === 'd' && resolve()))
    order.push('queued')
  })
  await done
  t.same(order, ['queued', 'a', 'b', 'c', 'd'])
})

t.test('a turn that used its budget yields: a timer due meanwhile runs before the next resume', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1, backlogMs: 1000 })
  const order: string[] = []
  await new Promise<void>((resolve) => {
    turns.enqueue(() => {
      order.push('first')
      // What a socket read stands for here: work that comes due while this turn renders.
      setTimeout(() => order.push('timer'), 0)
      busy(3)
    })
    turns.enqueue(() => order.push('second'))
    turns.enqueue(() => (order.push('third'), resolve()))
  })
  t.same(order, ['first', 'timer', 'second', 'third'])
})

t.test('resumes that fit in the budget share one turn', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1000, backlogMs: 10_000 })
  const order: string[] = []
  await new Promise<void>((resolve) => {
    turns.enqueue(() => (order.push('first'), setTimeout(() => (order.push('timer'), resolve()), 0)))
    turns.enqueue(() => order.push('second'))
    turns.enqueue(() => order.push('third'))
  })
  t.same(order, ['first', 'second', 'third', 'timer'])
})

t.test('a backlog older than its bound runs whole in one turn, whatever the budget', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1, backlogMs: 2 })
  const order: string[] = []
  await new Promise<void>((resolve) => {
    turns.enqueue(() => (order.push('first'), setTimeout(() => (order.push('timer'), resolve()), 0), busy(3)))
    turns.enqueue(() => order.push('second'))
    turns.enqueue(() => order.push('third'))
    // The queue waits longer than its bound before its first turn.
    busy(5)
  })
  t.same(order, ['first', 'second', 'third', 'timer'])
})

t.test('more resumes than a turn is given callbacks for: every one runs, in order', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1000, backlogMs: 10_000 })
  const ran: number[] = []
  await new Promise<void>((resolve) => {
    for (let index = 0; index < 40; index += 1) turns.enqueue(() => (ran.push(index), index === 39 && resolve()))
  })
  t.same(
    ran,
    Array.from({ length: 40 }, (_, index) => index),
  )
})

t.test('a resume queued while a turn runs waits for the next turn, after those queued before it', async (t) => {
  const turns = createHoleTurns({ budgetMs: 1, backlogMs: 1000 })
  const order: string[] = []
  await new Promise<void>((resolve) => {
    turns.enqueue(() => {
      order.push('first')
      turns.enqueue(() => (order.push('late'), resolve()))
    })
    turns.enqueue(() => order.push('second'))
  })
  t.same(order, ['first', 'second', 'late'])
})
