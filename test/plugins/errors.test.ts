import t from 'tap'
import net from 'node:net'
import { build } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'

t.test('an unknown path is the 404 page, in the layout, uncached', async (t) => {
  const { app } = await build(t)
  const response = await app.inject('/no/such/page')
  t.equal(response.statusCode, 404)
  t.match(response.headers['content-type'], /^text\/html/)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, '<title>404: This page could not be found</title>')
  t.match(response.body, '<span class="error-status">404</span>')
  t.match(response.body, 'class="site-header"', 'inside the site layout')
})

t.test('under /api and /_next a miss is JSON', async (t) => {
  const { app } = await build(t)
  for (const url of ['/api/nothing', '/_next/nothing', '/_next/static/chunks/missing.js']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 404, url)
    t.match(response.headers['content-type'], /^application\/json/, url)
    t.equal(response.headers['cache-control'], 'no-store', url)
    t.match(response.json(), { statusCode: 404, error: 'This page could not be found' }, url)
  }
})

t.test('malformed percent-encoding is a 400 page', async (t) => {
  const { app } = await build(t)
  for (const url of ['/%', '/guides/%E0%A4%A', '/%zz']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 400, url)
    t.match(response.body, '<title>400: Bad Request</title>', url)
  }
})

t.test('an over-long route parameter is not found', async (t) => {
  const { app } = await build(t)
  const response = await app.inject(`/guides/${'a'.repeat(500)}`)
  t.equal(response.statusCode, 404)
})

t.test('an oversized header gets 431 and the server keeps serving', async (t) => {
  const { app } = await build(t)
  const base = new URL(await listen(app))
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname, () => {
      socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`)
    })
    let text = ''
    socket.on('data', (data) => (text += data.toString()))
    socket.on('close', () => resolve(text))
    socket.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(text) : reject(error)))
  })
  t.match(reply, /^HTTP\/1\.1 431 /)
  const after = await fetch(`${base.origin}/api/health`)
  t.equal(after.status, 200)
})
