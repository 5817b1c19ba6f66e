/**
 * The example's writing feature (docs/your-site.md "Data the site writes"): make an account, sign in, leave feedback
 * on a guide and find it on the account page, sign out; in Chromium with JavaScript, and as plain HTTP for what a
 * browser cannot show: a second reader never sees the first's data, forged cookies and a look-alike cookie are no
 * session (the gate redirects, the API answers 401), and a sign-in guessed over and over is rate-limited. The data
 * lives in a DATA_DIR of the test's own. A test of the example, not of Courier: a site of your own adapts or deletes it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { startSuite } from '../e2e/harness.ts'
import { firstGuide } from './guide-links.ts'

const dataDir = mkdtempSync(path.join(tmpdir(), 'courier-example-data-'))
process.env.DATA_DIR = dataDir
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
const suite = await startSuite(t)
const form = { 'content-type': 'application/x-www-form-urlencoded' }

/** A new account `name`, signed in over HTTP: its session cookie (`name=value`). */
async function signUp(name: string): Promise<string> {
  const response = await fetch(`${suite.origin}/sign-in`, {
    method: 'POST',
    headers: form,
    body: `intent=create&name=${name}&password=a-long-password-of-${name}`,
    redirect: 'manual',
  })
  if (response.status !== 303) throw new Error(`signing ${name} up answered ${response.status}`)
  return response.headers.get('set-cookie')!.split(';')[0]!
}

t.test('in Chromium: make an account, leave feedback on a guide, see it on the account page, sign out', async (t) => {
  const session = await suite.open(t)
  const { page } = session
  const guide = await firstGuide(session)
  await session.goto('/account')
  t.equal(new URL(page.url()).pathname, '/sign-in', 'the gate sends a visitor without a session to sign in')
  t.ok(await session.waitForHydration(), 'hydrated')
  await page.getByLabel('Name').fill('ada-reader')
  await page.getByLabel('Password').fill('short')
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByText('A password is 10 to 200 characters.').waitFor()
  t.equal(await page.getByLabel('Name').inputValue(), 'ada-reader', 'the name sent is kept')
  await page.getByLabel('Password').fill('a-long-password')
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL((url) => url.pathname === '/account')
  await page.getByRole('heading', { name: 'Signed in as ada-reader' }).waitFor()
  await page.goto(`${suite.origin}${guide.href}`)
  await session.waitForHydration()
  await page.getByLabel(/Feedback on this guide/).fill('The part on time-outs helped.')
  await page.getByRole('button', { name: 'Send feedback' }).click()
  await page.waitForURL((url) => url.pathname === '/account')
  await page.getByText('The part on time-outs helped.').waitFor()
  t.pass('the feedback is on the account page')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL((url) => url.pathname === '/')
  await page.goto(`${suite.origin}/account`)
  t.equal(new URL(page.url()).pathname, '/sign-in', 'signed out: the account page is closed again')
})

t.test("a second reader sees their own account, never the first's", async (t) => {
  const grace = await signUp('grace-reader')
  const linus = await signUp('linus-reader')
  const guides = await (await fetch(`${suite.origin}/guides`)).text()
  const href = /href="(\/guides\/[\w-]+)"/.exec(guides)![1]!
  const left = await fetch(`${suite.origin}${href}`, {
    method: 'POST',
    headers: { ...form, cookie: grace },
    body: 'body=Grace%20was%20here',
    redirect: 'manual',
  })
  t.equal(left.status, 303, `Grace's feedback on ${href} is taken`)
  const ofGrace = await (await fetch(`${suite.origin}/api/account`, { headers: { cookie: grace } })).json()
  const ofLinus = await (await fetch(`${suite.origin}/api/account`, { headers: { cookie: linus } })).json()
  t.equal(ofGrace.name, 'grace-reader')
  t.equal(ofLinus.name, 'linus-reader')
  t.match(ofGrace.feedback, [{ body: 'Grace was here' }])
  t.same(ofLinus.feedback, [], "Linus sees none of Grace's feedback")
  const page = await fetch(`${suite.origin}/account`, { headers: { cookie: linus } })
  const html = await page.text()
  t.match(html, /Signed in as (<!-- -->)?linus-reader/)
  t.notMatch(html, 'grace-reader')
  t.match(page.headers.get('cache-control'), /private/)
  t.match(page.headers.get('vary'), /Cookie/)
})

t.test('forged, tampered and look-alike cookies are no session: the gate redirects, the API answers 401', async (t) => {
  const real = await signUp('mallory-target')
  const [name, value] = real.split('=') as [string, string]
  const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('A') ? 'B' : 'A'}${value.slice(-1)}`
  for (const cookie of ['courier_session=forged', tampered, 'xsession=1', `x${real}`]) {
    const gate = await fetch(`${suite.origin}/account`, { headers: { cookie }, redirect: 'manual' })
    t.equal(gate.status, 307, `${cookie.slice(0, 24)}: the gate redirects`)
    t.equal(gate.headers.get('location'), '/sign-in?next=%2Faccount')
    const api = await fetch(`${suite.origin}/api/account`, { headers: { cookie } })
    t.equal(api.status, 401, `${cookie.slice(0, 24)}: the API refuses`)
  }
  t.equal((await fetch(`${suite.origin}/api/account`, { headers: { cookie: real } })).status, 200, 'the real one works')
})

t.test('a sign-in guessed 100 times from one client is rate-limited with Retry-After', async (t) => {
  const statuses: number[] = []
  let retryAfter: string | null = null
  for (let guess = 0; guess < 100; guess += 1) {
    const response = await fetch(`${suite.origin}/sign-in`, {
      method: 'POST',
      headers: form,
      body: `intent=sign-in&name=ada-reader&password=guess-number-${guess}`,
    })
    await response.arrayBuffer()
    statuses.push(response.status)
    retryAfter ??= response.headers.get('retry-after')
  }
  const refused = statuses.filter((status) => status === 429).length
  t.ok(refused >= 80, `${refused} of 100 guesses refused with 429`)
  t.notOk(statuses.includes(303), 'no guess got in')
  t.match(retryAfter, /^\d+$/, `Retry-After: ${retryAfter}`)
})
