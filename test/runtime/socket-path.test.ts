/**
 * SOCKET_PATH before listening (src/runtime/socket-path.ts): a stale socket file (no process accepts on it, as after
 * a crash) is removed; a socket a server accepts on, and a file that is not a socket, are refused and left as they are.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ConfigError, loadConfig } from '../../config/env.ts'
import { prepareSocketPath, SocketPathInUseError } from '../../src/runtime/socket-path.ts'

const folder = mkdtempSync(path.join(tmpdir(), 'courier-socket-'))
t.teardown(() => rmSync(folder, { recursive: true, force: true }))

t.test('a stale socket file is removed', async (t) => {
  const socketPath = path.join(folder, 'stale.sock')
  // A process that listens and dies outright leaves its socket file behind (a close would have removed it).
  const script = `require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`
  spawnSync(process.execPath, ['-e', script, socketPath])
  t.ok(existsSync(socketPath), 'the dead server left its socket file')
  await prepareSocketPath(socketPath)
  t.notOk(existsSync(socketPath), 'removed')
  await prepareSocketPath(socketPath)
  t.pass('no file: nothing to do')
})

t.test('a socket a server accepts on is refused, and kept', async (t) => {
  const socketPath = path.join(folder, 'live.sock')
  const server = net.createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(socketPath, resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  await t.rejects(
    prepareSocketPath(socketPath),
    new SocketPathInUseError(`SOCKET_PATH ${socketPath}: another server accepts connections there`),
  )
  t.ok(existsSync(socketPath), 'still there')
})

t.test('a file that is not a socket is refused, and kept', async (t) => {
  const file = path.join(folder, 'not-a-socket')
  writeFileSync(file, 'data')
  await t.rejects(prepareSocketPath(file), { name: 'SocketPathInUseError', message: /exists and is not a socket/ })
  t.ok(existsSync(file))
})

t.test('SOCKET_PATH in the environment', async (t) => {
  t.equal(loadConfig({ SOCKET_PATH: '/run/courier/a.sock' }).socketPath, '/run/courier/a.sock')
  t.equal(loadConfig({}).socketPath, undefined)
  t.throws(
    () => loadConfig({ SOCKET_PATH: 'relative.sock' }),
    new ConfigError('invalid environment: SOCKET_PATH must be an absolute path (got "relative.sock")'),
  )
  t.throws(() => loadConfig({ SOCKET_PATH: `/${'x'.repeat(107)}` }), {
    message: 'invalid environment: SOCKET_PATH must be at most 107 bytes long (got 108)',
  })
})
