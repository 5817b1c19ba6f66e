/**
 * Revalidations between the workers of WEB_CONCURRENCY without Redis (src/shared-state/cluster-revalidation.ts): the
 * primary's relay and each worker's side, real, joined by lines that stand for node:cluster's IPC (a message arrives
 * a turn of the event loop later, in order). test/scale/cluster.test.ts forks real workers.
 */
import { pino } from 'pino'
import t, { type Test } from 'tap'
import {
  ClusterRevalidation,
  relayRevalidations,
  type ClusterPrimary,
  type ClusterWorker,
  type PrimaryLine,
} from '../../src/shared-state/cluster-revalidation.ts'
import { captureLogs } from '../helpers/app.ts'
import { recordedPages } from '../helpers/revalidated-pages.ts'

type Listener = (message: unknown) => void

/** A primary relaying for `size` workers; `lineOf` may replace a worker's line to it. */
function clusterOf(t: Test, size: number, lineOf?: (index: number, line: PrimaryLine) => PrimaryLine) {
  const primaryListeners = new Set<(from: ClusterWorker, message: unknown) => void>()
  const workers: NodeJS.Dict<ClusterWorker> = {}
  const primary: ClusterPrimary = { workers, on: (_event, listener) => primaryListeners.add(listener) }
  relayRevalidations(primary)
  return Array.from({ length: size }, (_, index) => {
    const toWorker = new Set<Listener>()
    const state = { connected: true }
    /** What node:cluster's IPC does: the message arrives a turn of the event loop later. */
    const toItself = (message: unknown) => setImmediate(() => toWorker.forEach((listener) => listener(message)))
    const worker: ClusterWorker = {
      isConnected: () => state.connected,
      send(message) {
        toItself(message)
        return true
      },
    }
    workers[String(index + 1)] = worker
    const toPrimary = (message: unknown) =>
      setImmediate(() => primaryListeners.forEach((listener) => listener(worker, message)))
    const ipc: PrimaryLine = {
      send: (message) => toPrimary(message),
      on: (_event, listener) => toWorker.add(listener),
      off: (_event, listener) => toWorker.delete(listener),
    }
    const recorded = recordedPages()
    const { stream, lines } = captureLogs()
    const line = lineOf?.(index, ipc) ?? ipc
    const revalidation = new ClusterRevalidation({ pages: recorded.pages, log: pino(stream), line })
    t.teardown(() => revalidation.close())
    return { revalidation, state, logs: lines, toItself, toPrimary, ...recorded }
  })
}

const message = { paths: ['/__test/guides/tide-tables'], tags: [] }
const turn = () => new Promise((resolve) => setImmediate(resolve))

t.test(
  "a worker's revalidation: regenerated there, applied by every other worker, counted by the primary",
  async (t) => {
    const [first, second, third] = clusterOf(t, 3)
    t.same(await first!.revalidation.tell(message), { instances: 3 }, 'three workers have it, this one included')
    t.same(first!.revalidated, [message], 'applied on the worker that took the call, once')
    t.same(second!.revalidated, [message], 'applied by the others before the call is answered')
    t.same(third!.revalidated, [message])
    t.same(
      first!.logs().filter((line) => line.level >= 40),
      [],
      'no warn line',
    )
  },
)

t.test('a worker no longer connected is neither told nor counted', async (t) => {
  const [first, second, third] = clusterOf(t, 3)
  third!.state.connected = false
  t.same(await second!.revalidation.tell(message), { instances: 2 })
  t.same(first!.revalidated, [message])
  t.same(third!.revalidated, [])
})

t.test('two calls at once on two workers: each answered for its own, every worker applies both', async (t) => {
  const [first, second, third] = clusterOf(t, 3)
  const other = { paths: [], tags: ['guides'] }
  t.same(await Promise.all([first!.revalidation.tell(message), second!.revalidation.tell(other)]), [
    { instances: 3 },
    { instances: 3 },
  ])
  t.same(first!.revalidated, [message, other], 'its own first, then the other')
  t.same(second!.revalidated, [other, message])
  t.same(third!.revalidated, [message, other], 'in the order the primary had them')
})

t.test('a primary that does not answer: this worker alone, once the wait is over, with a warn line', async (t) => {
  const [first, second] = clusterOf(t, 2, (index, line) => (index === 0 ? { ...line, send: () => undefined } : line))
  t.same(await first!.revalidation.tell(message), { instances: 1 })
  t.same(first!.revalidated, [message], 'still applied here')
  t.same(second!.revalidated, [])
  const warned = first!.logs().filter((line) => line.level === 40)
  t.same(
    warned.map((line) => line.msg),
    ['revalidation applied to this worker only: the primary did not answer'],
  )
})

t.test('a closed line to the primary: this worker alone at once, with a warn line', async (t) => {
  const closed = (index: number, line: PrimaryLine): PrimaryLine =>
    index === 0
      ? {
          ...line,
          send: () => {
            throw new Error('Channel closed')
          },
        }
      : line
  const [first] = clusterOf(t, 2, closed)
  t.same(await first!.revalidation.tell(message), { instances: 1 })
  t.equal(first!.logs().filter((line) => line.level === 40).length, 1)
})

t.test('messages of other shapes are left alone by the primary and the workers', async (t) => {
  const [first, second] = clusterOf(t, 2)
  for (const other of ['revalidate', null, { courier: 'other', paths: ['/'] }, { cmd: 'NODE_CLUSTER' }]) {
    first!.toPrimary(other)
    second!.toItself(other)
  }
  second!.toItself({ courier: 'revalidate-told', id: 'no such call', instances: 9 })
  await turn()
  await turn()
  t.same([first!.revalidated, second!.revalidated], [[], []], 'nothing applied')
  second!.toItself({ courier: 'revalidate-apply', paths: ['/__test/guides'], tags: [] })
  await turn()
  t.same(second!.revalidated, [{ paths: ['/__test/guides'], tags: [] }], 'a revalidation from the primary is')
})

t.test('a closed worker applies nothing more', async (t) => {
  const [first, second] = clusterOf(t, 2)
  second!.revalidation.close()
  await first!.revalidation.tell(message)
  t.same(second!.revalidated, [])
})
