import t from 'tap'
import http from 'node:http'
import { statusTitle } from '../../config/status-titles.ts'
import { build } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { testGuidesPath } from '../helpers/site-pages.ts'

/** GET through `agent`; `onHeaders` runs once the response has started (the server is working on it). */
function get(
  url: string,
  agent: http.Agent,
  onHeaders?: () => void,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      onHeaders?.()
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, reused: request.reusedSocket }),
      )
    })
    request.on('error', reject)
  })
}

t.test('while closing: in-flight pages finish, new requests on kept-alive connections get 503 + close', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const base = await listen(app)
  const agents = [0, 1, 2].map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }))
  t.teardown(() => agents.forEach((agent) => agent.destroy()))
  const [pageAgent, apiAgent, idleAgent] = agents as [http.Agent, http.Agent, http.Agent]
  t.equal((await get(`${base}/api/health`, idleAgent)).status, 200)

  let started = 0
  let bothStarted!: () => void
  const streaming = new Promise<void>((resolve) => (bothStarted = resolve))
  const onHeaders = () => ++started === 2 && bothStarted()
  const long = get(`${base}/__test/slow?delay=1500`, pageAgent, onHeaders)
  const short = get(`${base}/__test/slow?delay=600`, apiAgent, onHeaders)
  await streaming
  const closed = app.close()
  // The listener closes after the drain has begun.
  while (app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5))

  // The idle connection is kept for the drain: a request on it is answered, not reset.
  const onIdle = await get(`${base}${testGuidesPath}`, idleAgent)
  t.ok(onIdle.reused)
  t.equal(onIdle.status, 503)
  t.equal(onIdle.headers.connection, 'close')
  t.match(onIdle.body, `<title>503: ${statusTitle(503)}</title>`, 'HTML from the status-title table for a page')

  t.equal((await short).status, 200)
  const onBusy = await get(`${base}/api/health`, apiAgent)
  t.ok(onBusy.reused)
  t.equal(onBusy.status, 503)
  t.equal(onBusy.headers.connection, 'close')
  t.same(onBusy.headers['content-type'], 'application/json; charset=utf-8')
  t.same(JSON.parse(onBusy.body), {
    statusCode: 503,
    code: 'COURIER_ERR_SERVER_CLOSING',
    error: statusTitle(503),
    message: statusTitle(503),
  })

  const page = await long
  t.equal(page.status, 200)
  t.match(page.body, /Resolved after (<!-- -->)?1500/, 'the page in flight was finished')
  await closed
  t.equal(logs().filter((line) => line.statusCode === 503).length, 2, 'each 503 has its access line')
})
