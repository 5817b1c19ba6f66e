import http from 'node:http'
import { createElement, Suspense, use } from 'react'
import { prerenderToNodeStream } from 'react-dom/static'
import t from 'tap'
import { revalidation } from '../../config/content.ts'
import { serverLimits } from '../../config/server.ts'
import { build } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { inlineScriptHashes } from '../../src/render/shell-hash.ts'
import { documentStateElementId, liveDataAttribute } from '../../src/common/document-state.ts'

/** The test build's partly prerendered page (test/site/pages/test-partial.tsx): a kept shell, one hole. */
const partialPath = '/__test/partial'
const testRoutes = { COURIER_TEST_ROUTES: 'true' }

/** The shell of a document: everything before React's first resumed segment, with the nonce masked. */
function shellOf(body: string, nonce: string): string {
  const end = body.indexOf('<div hidden id="S:')
  return (end === -1 ? body : body.slice(0, end)).replaceAll(nonce, 'NONCE')
}

function nonceOf(policy: string | string[] | number | undefined): string {
  const nonce = /'nonce-([^']+)'/.exec(String(policy))?.[1]
  if (!nonce) throw new Error('the answer carries no CSP nonce')
  return nonce
}

t.test('the shell is the same bytes for every request but its nonce; the hole is each request’s own', async (t) => {
  const { app } = await build(t, testRoutes)
  const answers = []
  for (const token of ['first', 'second']) {
    const response = await app.inject({
      url: `${partialPath}?token=${token}`,
      headers: { 'accept-encoding': 'identity' },
    })
    t.equal(response.statusCode, 200)
    t.match(response.headers['cache-control'], /private/)
    t.match(response.headers['cache-control'], /no-store/)
    t.match(response.body, `For this request: <!-- -->${token}`, 'the hole holds this request’s data')
    answers.push({ body: response.body, nonce: nonceOf(response.headers['content-security-policy']) })
  }
  const [first, second] = answers.map(({ body, nonce }) => shellOf(body, nonce))
  t.not(answers[0]!.nonce, answers[1]!.nonce)
  t.match(first, 'id="partial-fallback"', 'the shell holds the hole’s fallback')
  t.match(first, /Kept: <!-- -->[0-9a-f-]{36}/, 'and the kept data')
  t.equal(second, first, 'the shells differ in nothing but the nonce')
  const gzipped = await app.inject({ url: `${partialPath}?token=third`, headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzipped.headers['content-encoding'], 'gzip')
  const { gunzipSync } = await import('node:zlib')
  const text = gunzipSync(gzipped.rawPayload).toString('utf8')
  t.equal(shellOf(text, nonceOf(gzipped.headers['content-security-policy'])), first, 'gzip carries the same shell')
  t.match(text, 'For this request: <!-- -->third')
})

t.test(
  'the request-time data arrives inside the hole, under the nonce; the document ends with the kept data',
  async (t) => {
    const { app } = await build(t, testRoutes)
    const response = await app.inject({
      url: `${partialPath}?token=inside`,
      headers: { 'accept-encoding': 'identity' },
    })
    const nonce = nonceOf(response.headers['content-security-policy'])
    const { body } = response
    const stateAt = body.indexOf(`<script id="${documentStateElementId}"`)
    const hole = body.slice(body.indexOf('<div hidden id="S:'), stateAt)
    t.match(hole, 'For this request: <!-- -->inside', 'the resumed hole')
    const tag = `<script ${liveDataAttribute}="" type="application/json" nonce="${nonce}">`
    t.ok(hole.includes(tag), 'carries a data script with this request’s nonce')
    const scriptText = hole.slice(hole.indexOf(tag) + tag.length, hole.indexOf('</script>', hole.indexOf(tag)))
    t.same(JSON.parse(scriptText), { value: { requestToken: 'inside' } }, 'holding the data it was drawn from')
    const stateJson = /^<script [^>]*>([^<]*)<\/script>/.exec(body.slice(stateAt))?.[1] ?? ''
    const state = JSON.parse(stateJson) as { data: Record<string, unknown>; liveInHoles?: boolean }
    t.equal(state.liveInHoles, true, 'the state says the holes carried it')
    t.same(Object.keys(state.data), ['kept'], 'and holds the kept data alone')
    t.notMatch(stateJson, 'inside')

    const failed = await app.inject(`${partialPath}?fail=1`)
    const failedHole = failed.body.slice(failed.body.indexOf('<div hidden id="S:'))
    t.match(
      failedHole,
      /<script data-courier-live="" type="application\/json" nonce="[^"]+">\{"failed":\{"digest":"[0-9a-f]{10}"/,
      'a failed loader: the hole carries the failure it shows',
    )
  },
)

t.test('the shell’s first byte goes out before the request-time loader has answered', async (t) => {
  const { app } = await build(t, testRoutes)
  const origin = await listen(app)
  // `?delay=never`: this request's loader never answers; whatever arrives came before it.
  const arrived = await new Promise<string>((resolve, reject) => {
    const request = http.get(`${origin}${partialPath}?delay=never`, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
        if (text.includes('id="partial-fallback"')) {
          request.destroy()
          resolve(text)
        }
      })
      response.on('end', () => reject(new Error('the document ended before its shell came')))
    })
    request.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)))
  })
  t.match(arrived, 'Partly prerendered', 'the shell arrived')
  t.notMatch(arrived, '<div hidden id="S:', 'the hole had not, nor its failure (the loader gives up after 5 s)')
})

t.test('a client that leaves while its hole waits for the loader: a debug line, no error line', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const origin = await listen(app)
  await new Promise<void>((resolve, reject) => {
    const request = http.get(`${origin}${partialPath}?delay=never`, (response) => {
      response.on('data', () => {
        request.destroy()
        resolve()
      })
    })
    request.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)))
  })
  // The loader's time-out passes with nobody left to show its failure to.
  await new Promise((resolve) => setTimeout(resolve, serverLimits.liveDataTimeoutMs + 500))
  t.same(
    logs().filter((line) => line.level >= 50),
    [],
    'no error line',
  )
  t.ok(
    logs().some((line) => line.level === 20 && line.msg === 'request-time data not needed: the client left'),
    'one debug line says the loader ended after the client left',
  )
})

t.test(
  'a failing request-time loader: 200, the hole shows the error section with the digest of the log line',
  async (t) => {
    const { app, logs } = await build(t, testRoutes)
    const response = await app.inject(`${partialPath}?fail=1`)
    t.equal(response.statusCode, 200, 'the shell was out: the status stays')
    t.match(response.headers['cache-control'], /no-store/)
    const line = logs().find((entry) => entry.msg === 'request-time data failed')
    t.ok(line, 'the failure is logged')
    const digest = String(line?.digest)
    t.match(digest, /^[0-9a-f]{10}$/)
    const segment = response.body.slice(response.body.indexOf('<div hidden id="S:'))
    t.match(segment, 'class="error-screen application-error"', 'the hole holds the error section')
    t.match(segment, `Digest: ${digest}`, 'with the digest of the log line')
    t.match(response.body, 'id="partial-title"', 'the rest of the page stays')
    t.notMatch(response.body, 'failed on purpose', 'the message stays on the server')
  },
)

t.test('the CSP allows React’s nonce-less shell script by its hash, the one the installed React writes', async (t) => {
  // React's own: a prerender aborted at a hole, with nothing of Courier's.
  const never = new Promise<never>(() => undefined)
  function Hole() {
    use(never)
    return null
  }
  const controller = new AbortController()
  const tree = createElement(
    'main',
    null,
    createElement('h1', null, 'Shell'),
    createElement(Suspense, { fallback: 'wait' }, createElement(Hole)),
  )
  const prerendered = prerenderToNodeStream(tree, {
    signal: controller.signal,
    onError: () => undefined,
  })
  setImmediate(() => controller.abort(new Error('a hole')))
  let prelude = ''
  for await (const chunk of (await prerendered).prelude) prelude += String(chunk)
  const [reactHash] = inlineScriptHashes(prelude)
  t.ok(reactHash, 'the installed React writes a script without a nonce in a prelude with a hole')

  const { app } = await build(t, testRoutes)
  const response = await app.inject(partialPath)
  const policy = String(response.headers['content-security-policy'])
  t.match(
    policy,
    new RegExp(`^script-src ${reactHash!.replace(/[+/=]/g, '\\$&')} 'nonce-`),
    'script-src names its hash',
  )
  for (const hash of inlineScriptHashes(response.body))
    t.ok(policy.includes(hash), `the document’s script ${hash} is allowed`)
  t.ok(
    [...response.body.matchAll(/<script\b([^>]*)>/g)].every(
      ([, attributes]) =>
        attributes === '' || attributes!.includes('nonce=') || /type="application\/json"/.test(attributes!),
    ),
    'every other script carries the nonce',
  )
  const otherPage = await app.inject('/__test/slow?delay=0')
  t.notMatch(String(otherPage.headers['content-security-policy']), 'sha256-', 'other pages’ policies name no hash')
})

t.test('a revalidation changes kept data and shell together; page data carries both kinds', async (t) => {
  const token = 'a-test-token-of-some-length-0123456789'
  const { app } = await build(t, { ...testRoutes, REVALIDATE_TOKEN: token })
  const keptToken = (body: string) => /Kept: <!-- -->([0-9a-f-]{36})/.exec(body)?.[1]
  const before = keptToken((await app.inject(partialPath)).body)
  const authorization = `Bearer ${token}`
  const payload = { paths: [partialPath] }
  const revalidated = await app.inject({ method: 'POST', url: revalidation.path, headers: { authorization }, payload })
  t.equal(revalidated.statusCode, 200)
  const response = await app.inject(`${partialPath}?token=after`)
  const after = keptToken(response.body)
  t.ok(before && after && before !== after, 'a new kept version, a new shell')
  t.match(response.body, `"kept":{"keptToken":"${after}"}`, 'the hydration state holds the same kept data')
  t.match(response.body, 'For this request: <!-- -->after')
  const id = app.deploymentId
  const data = await app.inject({
    url: `/_next/data/${id}${partialPath}.json?token=data`,
    headers: { 'x-deployment-id': id },
  })
  t.equal(data.statusCode, 200)
  const json = data.json<{
    pageProps: { kept: { keptToken: string }; live: { value: { requestToken: string } } }
    kind: string
  }>()
  t.equal(json.kind, 'dynamic')
  t.equal(json.pageProps.kept.keptToken, after, 'the kept version’s data: the kept loader does not run again')
  const again = await app.inject({
    url: `/_next/data/${id}${partialPath}.json?token=again`,
    headers: { 'x-deployment-id': id },
  })
  t.equal(
    again.json<{ pageProps: { kept: { keptToken: string } } }>().pageProps.kept.keptToken,
    after,
    'nor on the next',
  )
  t.same(json.pageProps.live, { value: { requestToken: 'data' } })
})

t.test('many documents at once: each shell goes out, each hole holds its own request’s data', async (t) => {
  const { app } = await build(t, testRoutes)
  const origin = await listen(app)
  const tokens = Array.from({ length: 24 }, (_, index) => `many${index}`)
  const bodies = await Promise.all(
    tokens.map(async (token) => {
      const response = await fetch(`${origin}${partialPath}?token=${token}`, {
        headers: { 'accept-encoding': 'identity' },
      })
      return { status: response.status, body: await response.text() }
    }),
  )
  for (const [index, { status, body }] of bodies.entries()) {
    t.equal(status, 200)
    t.match(body, `For this request: <!-- -->${tokens[index]}<`, `document ${index} holds its own token`)
    t.ok(body.trimEnd().endsWith('</html>'), `document ${index} is whole`)
  }
})
