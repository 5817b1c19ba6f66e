/**
 * The browser suite's loopback proxy on a kept-alive socket the server has just closed: the proxy's own race, which
 * must never reach a browser as a 502 for a GET (a test would then see a console error the site never caused). And
 * what a session records: its own tab's requests, never a closed tab's.
 */
import t, { type Test } from 'tap'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { startProxy } from './proxy.ts'

/** Answers the first request of each connection; closes the connection on the second without a byte of answer. */
async function closingUpstream(t: Test): Promise<string> {
  const served = new WeakMap<Socket, number>()
  const server = http.createServer((request, reply) => {
    const count = (served.get(request.socket) ?? 0) + 1
    served.set(request.socket, count)
    if (count > 1) return void request.socket.destroy()
    reply.end(`answered ${request.method}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** As a browser asks: on a kept-alive connection (the proxy passes `Connection: keep-alive` on). */
function ask(origin: string, method: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${origin}/`, { method, agent }, (answer) => {
      let body = ''
      answer.setEncoding('utf8')
      answer.on('data', (chunk: string) => (body += chunk))
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }))
    })
    request.on('error', reject)
    request.end()
  })
}

t.test('a GET whose kept-alive socket the server closed goes again on a fresh one', async (t) => {
  const proxy = await startProxy(await closingUpstream(t))
  const agent = new http.Agent({ keepAlive: true })
  t.teardown(() => (agent.destroy(), proxy.close()))
  t.same(
    await ask(proxy.origin, 'GET', agent),
    { status: 200, body: 'answered GET' },
    'the first request opens the socket',
  )
  t.same(
    await ask(proxy.origin, 'GET', agent),
    { status: 200, body: 'answered GET' },
    'the second, sent on it and refused, is sent again',
  )
})

t.test('a POST is not sent twice: the failure is a 502', async (t) => {
  const proxy = await startProxy(await closingUpstream(t))
  const agent = new http.Agent({ keepAlive: true })
  t.teardown(() => (agent.destroy(), proxy.close()))
  t.equal((await ask(proxy.origin, 'GET', agent)).status, 200)
  t.equal((await ask(proxy.origin, 'POST', agent)).status, 502, 'a request that may have had an effect is not repeated')
})

t.test("a session's record starts at its first document: a closed tab's late prefetch is left out", async (t) => {
  const proxy = await startProxy(await closingUpstream(t))
  t.teardown(() => proxy.close())
  const fetchAs = (dest: string) =>
    new Promise<void>((resolve, reject) => {
      const agent = new http.Agent({ keepAlive: false })
      const request = http.get(`${proxy.origin}/${dest}`, { agent, headers: { 'sec-fetch-dest': dest } }, (answer) => {
        answer.resume().on('end', resolve)
      })
      request.on('error', reject)
    })
  await proxy.reset()
  await fetchAs('script')
  t.same(proxy.requests, [], "a script before any document: not this session's")
  await fetchAs('document')
  await fetchAs('script')
  t.same(
    proxy.requests.map((entry) => entry.dest),
    ['document', 'script'],
    'the document and what follows it',
  )
  await proxy.reset()
  await fetchAs('script')
  t.same(proxy.requests, [], 'a new session starts again with nothing')
})
