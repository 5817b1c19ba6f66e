import t from 'tap'
import { imageOptimizer } from '../../config/images.ts'
import { errors } from '../../src/errors.ts'
import { Semaphore } from '../../src/toolbox/semaphore.ts'
import { buildImageApp, jpegOf } from '../helpers/images.ts'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((settle) => (resolve = settle))
  return { promise, resolve }
}

t.test('at most N transforms run at once; the rest wait in order; beyond the queue, 429 busy', async (t) => {
  const queue = new Semaphore({ max: 2, maxQueued: 2, busy: () => new errors.ImageBusy() })
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
  await t.rejects(
    queue.run(async () => 99),
    { code: 'COURIER_ERR_IMAGE_BUSY', statusCode: 429 },
    'a fifth is refused',
  )

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
  const queue = new Semaphore({ max: 1, maxQueued: 1, busy: () => new errors.ImageBusy() })
  await t.rejects(
    queue.run(async () => Promise.reject(new Error('broken'))),
    { message: 'broken' },
  )
  t.equal(await queue.run(async () => 'next'), 'next')
  t.equal(queue.running, 0)
})

t.test(
  'one client holds at most its share of running and waiting transforms; waiters are served client by client',
  async (t) => {
    const queue = new Semaphore({ max: 1, maxQueued: 10, maxPerKey: 3, busy: () => new errors.ImageBusy() })
    const gate = deferred()
    const order: string[] = []
    const task = (name: string) => async () => {
      order.push(name)
      await gate.promise
      return name
    }
    const flood = ['a1', 'a2', 'a3'].map((name) => queue.run(task(name), 'client-a'))
    await t.rejects(
      queue.run(task('a4'), 'client-a'),
      { code: 'COURIER_ERR_IMAGE_BUSY' },
      'a fourth from the same client is refused',
    )
    const others = [queue.run(task('b1'), 'client-b'), queue.run(task('c1'), 'client-c')]
    t.equal(queue.queued, 4, 'the other clients still queue')
    gate.resolve()
    await Promise.all([...flood, ...others])
    t.same(order, ['a1', 'b1', 'c1', 'a2', 'a3'], 'after a1, the next client in turn, not the flooding one')
    t.equal(queue.running, 0)
    t.equal(queue.queued, 0)
  },
)

t.test(
  'a full queue answers 429 with Retry-After (never a 5xx a proxy counts against the instance), one warn line each, no stack',
  async (t) => {
    const photo = await jpegOf(1600, 1200)
    const { app, logs } = await buildImageApp(
      t,
      { 'images/photo.jpg': photo },
      { limits: { maxConcurrentTransforms: 1, maxQueuedTransforms: 1 } },
    )
    const widths = [256, 384, 640, 750, 828, 1080]
    const answers = await Promise.all(
      widths.map((width) =>
        app.inject({
          url: `/_next/image?url=${encodeURIComponent('/images/photo.jpg')}&w=${width}`,
          headers: { accept: 'image/avif' },
        }),
      ),
    )
    const refused = answers.filter((response) => response.statusCode !== 200)
    t.equal(answers.length - refused.length, 2, 'one ran, one waited')
    t.equal(refused.length, widths.length - 2, 'the rest were refused at once')
    for (const response of refused) {
      t.equal(response.statusCode, 429)
      t.equal(response.headers['retry-after'], String(imageOptimizer.busyRetryAfterS))
      t.equal(response.headers['cache-control'], 'no-store')
      t.match(response.json(), {
        statusCode: 429,
        code: 'COURIER_ERR_IMAGE_BUSY',
        message: 'Too many images are being optimized; retry shortly',
      })
    }
    const busyLines = logs().filter((line) => line.msg === 'image optimizer busy')
    t.equal(busyLines.length, refused.length, 'one line per busy answer')
    for (const line of busyLines) {
      t.equal(line.level, 40, 'warn')
      t.equal(line.code, 'COURIER_ERR_IMAGE_BUSY')
      t.notOk('err' in line || 'stack' in line, 'no error object, no stack')
    }
    t.same(
      logs().filter((line) => line.level >= 50),
      [],
      'no error line',
    )
  },
)
