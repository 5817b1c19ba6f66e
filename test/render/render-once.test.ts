import t from 'tap'
import { createElement, Suspense, use, type ReactNode } from 'react'
import { documentBytes } from '../../src/delivery/kept-bytes.ts'
import {
  DocumentCache,
  documentNoncePlaceholder,
  splitAtNonce,
  type KeptDocument,
} from '../../src/render/document-cache.ts'
import { renderOnce } from '../../src/render/render-once.ts'
import { identityPieces, PieceStream } from '../../src/compression/pieces.ts'
import { renderUnderTimeOut, renderWhole } from '../../src/render/stream.ts'

const opening = (nonce: string | undefined) =>
  `<!doctype html><html><head><script type="module" src="/a.js"${nonce ? ` nonce="${nonce}"` : ''}></script></head><body><div id="root">`
const closing = (nonce: string | undefined) =>
  `</div><script id="state" type="application/json"${nonce ? ` nonce="${nonce}"` : ''}>{}</script></body></html>`

function After({ promise }: { promise: Promise<string> }) {
  return createElement('p', null, use(promise))
}

/** A shell, then a boundary that resolves a moment later: React streams it with an inline script of its own. */
function lateBoundary(): ReactNode {
  const promise = new Promise<string>((resolve) => setTimeout(() => resolve('late & "quoted"'), 10))
  return createElement(
    'main',
    null,
    createElement('h1', null, 'Title'),
    createElement(Suspense, { fallback: 'wait' }, createElement(After, { promise })),
  )
}

/** The streamed render of `element`, framed as the sender frames it without a coding (src/delivery/send.ts). */
async function streamed(element: ReactNode, nonce: string | undefined): Promise<string> {
  const render = await renderUnderTimeOut((hooks) => renderWhole(element, nonce, hooks), {
    timeoutMs: 5000,
    onError: () => undefined,
  })
  const stream = new PieceStream({ coding: identityPieces, opening: opening(nonce), closing: () => closing(nonce) })
  render.body.pipe(stream)
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function kept(element: ReactNode, timeoutMs = 5000) {
  return renderOnce({ element, opening, closing, timeoutMs })
}

t.test('a kept document with a nonce put back is byte for byte the streamed render with that nonce', async (t) => {
  const document = await kept(lateBoundary())
  if (typeof document === 'string') throw new Error(`not kept: ${document}`)
  t.ok(document.parts.length >= 4, 'the template and React both wrote nonces (module script, state, inline script)')
  for (const nonce of ['abc+/=', 'Zm9vYmFyYmF6cXV4MTIzNA==']) {
    t.equal(documentBytes(document, nonce).toString('utf8'), await streamed(lateBoundary(), nonce), nonce)
  }
  t.equal(documentBytes(document, undefined).toString('utf8'), await streamed(lateBoundary(), undefined), 'no nonce')
  const html = documentBytes(document, 'n1').toString('utf8')
  t.notMatch(html, documentNoncePlaceholder, 'the placeholder never reaches a response')
  t.match(html, '<script nonce="n1">', "React's own inline script carries the request's nonce")
})

t.test('each request gets its own nonce from the same parts', async (t) => {
  const document = (await kept(lateBoundary())) as KeptDocument
  const first = documentBytes(document, 'nonce-one').toString('utf8')
  const second = documentBytes(document, 'nonce-two').toString('utf8')
  t.notMatch(first, 'nonce-two')
  t.notMatch(second, 'nonce-one')
  t.equal(first.replaceAll('nonce-one', 'x'), second.replaceAll('nonce-two', 'x'))
})

t.test('a boundary that fails is not kept', async (t) => {
  function Fails(): ReactNode {
    throw new Error('boundary failed on purpose')
  }
  const element = createElement('main', null, createElement(Suspense, { fallback: 'wait' }, createElement(Fails)))
  t.equal(await kept(element), 'render-error')
})

t.test('a shell that fails is not kept', async (t) => {
  function Fails(): ReactNode {
    throw new Error('shell failed on purpose')
  }
  t.equal(await kept(createElement(Fails)), 'shell-error')
})

t.test('a render that hits the time-out is not kept', async (t) => {
  // The render's timer does not hold the process open (a server's socket does): this test holds it.
  const holdOpen = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(holdOpen))
  const never = new Promise<string>(() => {})
  const element = createElement(
    'main',
    null,
    createElement(Suspense, { fallback: 'wait' }, createElement(After, { promise: never })),
  )
  t.equal(await kept(element, 20), 'render-error')
})

t.test('a document that spells the placeholder outside a nonce attribute is not kept', async (t) => {
  t.equal(splitAtNonce(`<p>${documentNoncePlaceholder}</p>`), undefined)
  t.equal(await kept(createElement('p', null, documentNoncePlaceholder)), 'placeholder-outside-nonce')
  const plain = splitAtNonce('<p>no nonce at all</p>')!
  t.equal(plain.parts.length, 1)
  t.equal(documentBytes(plain, 'n').toString('utf8'), '<p>no nonce at all</p>')
})

function keptOf(text: string): KeptDocument {
  return splitAtNonce(text)!
}

t.test('the cache: concurrent first uses share one render', async (t) => {
  const cache = new DocumentCache(10)
  let renders = 0
  const render = async () => {
    renders++
    await new Promise((resolve) => setTimeout(resolve, 10))
    return keptOf('<p>a</p>')
  }
  const results = await Promise.all([1, 2, 3, 4, 5].map(() => cache.get('a', render)))
  t.equal(renders, 1)
  t.ok(results.every((result) => result === results[0]))
  await cache.get('a', render)
  t.equal(renders, 1, 'kept for later requests too')
})

t.test('the cache: a render that gave nothing or threw is dropped and tried again', async (t) => {
  const cache = new DocumentCache(10)
  let renders = 0
  t.equal(await cache.get('a', async () => (renders++, undefined)), undefined)
  t.equal(cache.size, 0)
  t.equal(
    await cache.get('a', async () => {
      renders++
      throw new Error('render failed')
    }),
    undefined,
  )
  t.equal(cache.size, 0)
  t.ok(await cache.get('a', async () => (renders++, keptOf('<p>a</p>'))))
  t.equal(renders, 3)
  t.equal(cache.size, 1)
})

t.test('the cache: once full, new keys are not rendered for keeping', async (t) => {
  const cache = new DocumentCache(2)
  let renders = 0
  const render = async () => (renders++, keptOf('<p>x</p>'))
  await cache.get('a', render)
  await cache.get('b', render)
  t.equal(await cache.get('c', render), undefined)
  t.equal(renders, 2)
  t.equal(cache.size, 2)
  t.ok(await cache.get('a', render), 'kept keys still answer')
  t.equal(await new DocumentCache(0).get('a', render), undefined, '0 keeps nothing')
})

t.test(
  'a slot is ready once its render has given a document: never while it renders, nor after one that gave nothing',
  async (t) => {
    const cache = new DocumentCache(10)
    const slot = cache.slot('a')!
    t.equal(slot.ready, undefined, 'nothing before the first use')
    t.equal(await slot.get(async () => undefined), undefined)
    t.equal(slot.ready, undefined, 'a render that gave nothing')
    let finish: (document: KeptDocument) => void = () => {}
    const pending = slot.get(() => new Promise<KeptDocument>((resolve) => (finish = resolve)))
    t.equal(slot.ready, undefined, 'nor while it renders')
    const document = keptOf('<p>a</p>')
    finish(document)
    t.equal(await pending, document)
    t.equal(slot.ready, document, 'the kept document once rendered')
  },
)
