/**
 * Cross-site requests in Chromium (docs/forms.md "Cross-site requests"): a page on another origin that posts a form to
 * the site's form page, or sends a fetch to its data URL or to a JSON route, is refused (403), and the action never
 * runs; another site's page cannot sign a visitor in (login CSRF) or out, which the site's own page can; the same form
 * sent from the site's own page goes through (test/e2e/journeys/forms.test.ts shows it in every
 * engine, JavaScript on and off).
 */
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startSuite } from './harness.ts'
import { testPage } from '../helpers/page-table.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })
const formPath = testPage('test-form').path
/** Another site: a server of its own on another loopback port, a real other origin (and one Chromium lets reach
 * loopback, as a public page could not). It answers every path with the page the test gives it. */
let attackerBody = ''
const attackerServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackerBody)
})
await new Promise<void>((resolve) => attackerServer.listen(0, '127.0.0.1', resolve))
t.teardown(() => new Promise<void>((resolve) => attackerServer.close(() => resolve())))
const attacker = `http://127.0.0.1:${(attackerServer.address() as AddressInfo).port}`

function attackerPage(body: string): string {
  return `<!doctype html><html><body>${body}</body></html>`
}

t.test("another site's page cannot send the site's form, nor fetch its data URL or a JSON route", async (t) => {
  const session = await suite.open(t)
  const target = suite.origin
  const page = attackerPage(
    `<form method="post" action="${target}${formPath}"><input name="name" value="Mallory">` +
      `<input name="email" value="mallory@attacker.test"></form>` +
      `<script>document.forms[0].submit()</script>`,
  )
  attackerBody = page
  const posted = session.page.waitForResponse((response) => response.url() === `${target}${formPath}`)
  await session.page.goto(`${attacker}/`)
  const response = await posted
  t.equal(response.status(), 403, 'the form posted from another site: 403')
  t.equal(response.request().headers().origin, attacker, 'the browser said where it came from')
  await session.page.waitForLoadState('load')
  t.match(await session.page.title(), /^403/, 'the 403 page, not the page after a submission')

  attackerBody = attackerPage('<p>elsewhere</p>')
  await session.page.goto(`${attacker}/quiet`)
  const statuses = await session.page.evaluate(
    async ({ target, data, formPath }) => {
      const send = (url: string, body: string, type: string) =>
        fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': type }, body })
      await send(`${target}${data}`, 'name=Mallory&email=mallory@attacker.test', 'application/x-www-form-urlencoded')
      await send(`${target}/api/client-errors`, '{"kind":"error","message":"forged"}', 'text/plain')
      await send(
        `${target}${formPath}`,
        'name=Mallory&email=mallory@attacker.test',
        'application/x-www-form-urlencoded',
      )
      return true
    },
    { target, data: `/_next/data/${suite.deploymentId}${formPath}.json`, formPath },
  )
  t.ok(statuses, 'the fetches were sent')
  const refused = session.recording.requests.filter(
    (request) => request.url.startsWith(target) && request.method === 'POST',
  )
  t.ok(refused.length >= 3, `the fetches reached the server (${refused.length})`)
  t.ok(
    refused.every((request) => request.status === 403),
    `every one refused: ${refused.map((request) => `${request.url.slice(target.length)} ${request.status}`).join(', ')}`,
  )
  const lines = suite.serverLogs().filter((line) => line.msg === 'cross-site request refused')
  t.ok(lines.length >= 4, `the server logged each (${lines.length})`)
  t.notOk(
    suite.serverLogs().some((line) => line.msg === 'client error reported' || /forged/.test(JSON.stringify(line))),
    'the forged report was never taken',
  )
})

t.test("another site's page cannot sign the visitor in or out; the site's own page can", async (t) => {
  const session = await suite.open(t)
  const target = suite.origin
  const visitorData = `/_next/data/${suite.deploymentId}${testPage('test-visitor').path}.json`
  attackerBody = attackerPage('<p>elsewhere</p>')
  await session.page.goto(`${attacker}/signing`)
  await session.page.evaluate(async (target) => {
    const send = (url: string, body: string) =>
      fetch(url, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body,
      })
    await send(`${target}/api/__test/sign-in`, '{"user":"mallory"}')
    await send(`${target}/api/__test/sign-out`, '')
  }, target)
  const fromElsewhere = session.recording.requests.filter(
    (request) => request.url.startsWith(target) && request.method === 'POST',
  )
  t.same(
    fromElsewhere.map((request) => `${request.url.slice(target.length)} ${request.status}`),
    ['/api/__test/sign-in 403', '/api/__test/sign-out 403'],
    'both refused',
  )
  t.same(
    (await session.context.cookies(target)).filter((cookie) => cookie.name === 'courier_session'),
    [],
    'no session cookie was planted',
  )

  await session.page.goto(`${target}${testPage('test-static').path}`)
  const fromTheSite = await session.page.evaluate(
    async ({ visitorData }) => {
      const json = { 'content-type': 'application/json' }
      const signIn = await fetch('/api/__test/sign-in', { method: 'POST', headers: json, body: '{"user":"ada"}' })
      const signedIn = (await (await fetch(visitorData)).json()) as { pageProps: { visitor: string } }
      const signOut = await fetch('/api/__test/sign-out', { method: 'POST' })
      const signedOut = (await (await fetch(visitorData)).json()) as { pageProps: { visitor: string } }
      return [signIn.status, signedIn.pageProps.visitor, signOut.status, signedOut.pageProps.visitor]
    },
    { visitorData },
  )
  t.same(fromTheSite, [200, 'ada', 200, 'nobody'], 'signed in, named, signed out, nobody again')
})
