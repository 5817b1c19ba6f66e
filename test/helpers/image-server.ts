/**
 * The image plugin alone in a process of its own, for tests that measure the process (its peak RSS) rather than the
 * test runner: `node --import tsx test/helpers/image-server.ts <publicRoot> <cacheDir> [limits as JSON]`. Listens on a
 * free loopback port and prints `listening <port>` once ready; SIGTERM closes it.
 */
import Fastify from 'fastify'
import errors from '../../plugins/errors.ts'
import image, { type ImageOptions } from '../../plugins/image.ts'

const [publicRoot, cacheDir, limits = '{}'] = process.argv.slice(2)
if (!publicRoot || !cacheDir) throw new Error('usage: image-server.ts <publicRoot> <cacheDir> [limits as JSON]')

const app = Fastify({ logger: { level: 'warn' } })
await app.register(errors)
await app.register(image, { publicRoot, cacheDir, limits: JSON.parse(limits) as ImageOptions['limits'] })
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`)
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
