import t from 'tap'
import { KeptFlight, SingleFlight } from '../../src/toolbox/single-flight.ts'

t.test('one making per key at a time; free again once it settles, a failure not kept', async (t) => {
  const flights = new SingleFlight<string, number>()
  let made = 0
  let finish: (value: number) => void = () => undefined
  const make = () => {
    made++
    return new Promise<number>((resolve) => (finish = resolve))
  }
  const first = flights.run('a', make)
  const second = flights.run('a', make)
  t.equal(first, second, 'the same promise for a key already being made')
  t.ok(flights.has('a'))
  t.equal(flights.get('a'), first)
  const other = flights.run('b', async () => 2)
  finish(1)
  t.same(await Promise.all([first, second, other]), [1, 1, 2])
  t.equal(made, 1, 'made once')
  t.notOk(flights.has('a'), 'free once settled')
  await t.rejects(
    flights.run('a', async () => Promise.reject(new Error('broken'))),
    /broken/,
  )
  t.equal(await flights.run('a', async () => 3), 3, 'a failure is not kept')
})

t.test(
  'a kept value: made once for concurrent callers, kept on success; a failure or a refused value is not',
  async (t) => {
    const kept = new KeptFlight<string | undefined>((value) => value !== undefined)
    let made = 0
    const make = (value: string | undefined) => async () => {
      made++
      return value
    }
    await t.rejects(
      kept.get(async () => Promise.reject(new Error('broken'))),
      { message: 'broken' },
    )
    t.notOk(kept.holds, 'a failure is not kept')
    t.equal(await kept.get(make(undefined)), undefined)
    t.notOk(kept.holds, 'a refused value is not kept')
    const [first, second] = await Promise.all([kept.get(make('made')), kept.get(make('again'))])
    t.same([first, second], ['made', 'made'], 'concurrent callers share one making')
    t.equal(kept.ready, 'made')
    t.equal(await kept.get(make('again')), 'made', 'kept')
    t.equal(made, 2)
  },
)
