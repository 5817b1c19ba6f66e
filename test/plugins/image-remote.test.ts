import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { isPrivateAddress } from '../../src/images/address-policy.ts'
import type { LookupFunction } from '../../src/images/source-remote.ts'
import { upstreamMaxAge } from '../../src/images/source-remote.ts'
import { buildImageApp, jpegOf } from '../helpers/images.ts'

const photo = await jpegOf(400, 300)

interface Upstream {
  origin: string
  port: number
  /** Headers of every request the upstream received. */
  received: http.IncomingHttpHeaders[]
}

/** A real HTTP server on 127.0.0.1 playing the remote image host. */
async function startUpstream(t: Test, handler: http.RequestListener): Promise<Upstream> {
  const received: http.IncomingHttpHeaders[] = []
  const server = http.createServer((request, response) => {
    received.push(request.headers)
    handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  const { port } = server.address() as AddressInfo
  return { origin: `http://127.0.0.1:${port}`, port, received }
}

function serveImages(request: http.IncomingMessage, response: http.ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://upstream')
  const hops = Number(url.searchParams.get('hops') ?? 0)
  if (url.pathname === '/redirect') {
    const next = hops > 1 ? `/redirect?hops=${hops - 1}` : '/photo.jpg'
    response.writeHead(302, { location: next }).end()
    return
  }
  if (url.pathname === '/away') {
    response.writeHead(302, { location: 'https://elsewhere.example/photo.jpg' }).end()
    return
  }
  if (url.pathname === '/photo.jpg') {
    response.writeHead(200, {
      'content-type': 'image/jpeg',
      'cache-control': url.searchParams.get('cc') ?? 'public, max-age=3600',
    })
    response.end(photo)
    return
  }
  if (url.pathname === '/hang') return // never answers
  response.writeHead(404).end()
}

/** Resolves `images.test` to the loopback address, the way a hostile DNS answer would. */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

const image = (url: string) => `/_next/image?url=${encodeURIComponent(url)}&w=256`

t.test('addresses in loopback, private, link-local and reserved ranges are refused', async (t) => {
  for (const address of [
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ]) {
    t.ok(isPrivateAddress(address), `${address} refused`)
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    t.notOk(isPrivateAddress(address), `${address} allowed`)
  }
})

t.test('the upstream max-age is read from s-maxage or max-age', async (t) => {
  t.equal(upstreamMaxAge('public, max-age=3600'), 3600)
  t.equal(upstreamMaxAge('max-age=10, s-maxage=600'), 600)
  t.equal(upstreamMaxAge('no-store'), 0)
  t.equal(upstreamMaxAge('private, max-age=3600'), 0)
  t.equal(upstreamMaxAge(null), undefined)
  t.equal(upstreamMaxAge('max-age=abc'), undefined)
})

t.test('an allowed origin on the loopback address is still refused by default', async (t) => {
  const upstream = await startUpstream(t, serveImages)
  const { app } = await buildImageApp(t, {}, { limits: { remoteOrigins: [upstream.origin] } })
  const response = await app.inject(image(`${upstream.origin}/photo.jpg`))
  t.equal(response.statusCode, 400)
  t.equal(response.json().code, 'COURIER_ERR_IMAGE_URL_REFUSED')
  t.equal(response.json().message, 'url resolves to a loopback, private or link-local address')
  t.equal(upstream.received.length, 0, 'no connection was made')
})

t.test('a host name that resolves to the loopback address is refused at connect time', async (t) => {
  const upstream = await startUpstream(t, serveImages)
  const origin = `http://images.test:${upstream.port}`
  const { app } = await buildImageApp(t, {}, { limits: { remoteOrigins: [origin] }, lookup: loopbackLookup })
  const response = await app.inject(image(`${origin}/photo.jpg`))
  t.equal(response.statusCode, 400)
  t.equal(response.json().message, 'url resolves to a loopback, private or link-local address')
  t.equal(upstream.received.length, 0, 'no connection was made')
})

t.test(
  "with the address rule explicitly lifted, an allowed origin is fetched without the visitor's credentials",
  async (t) => {
    const upstream = await startUpstream(t, serveImages)
    const origin = `http://images.test:${upstream.port}`
    const { app } = await buildImageApp(
      t,
      {},
      { limits: { remoteOrigins: [origin] }, lookup: loopbackLookup, isAddressRefused: () => false },
    )
    const response = await app.inject({
      url: image(`${origin}/photo.jpg`),
      headers: { accept: 'image/webp', cookie: 'session=secret', authorization: 'Bearer secret' },
    })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'image/webp')
    t.equal(
      response.headers['cache-control'],
      'public, max-age=3600, must-revalidate',
      'the upstream max-age, above the minimum',
    )
    t.equal(response.headers['content-disposition'], 'inline; filename="photo.webp"')
    t.equal(upstream.received.length, 1)
    t.notOk(upstream.received[0]!.cookie, 'no cookie forwarded')
    t.notOk(upstream.received[0]!.authorization, 'no authorization forwarded')

    const short = await app.inject({
      url: image(`${origin}/photo.jpg?cc=max-age%3D5`),
      headers: { accept: 'image/webp' },
    })
    t.equal(short.headers['cache-control'], 'public, max-age=60, must-revalidate', 'never below the minimum lifetime')

    const other = await app.inject(image(`http://other.test:${upstream.port}/photo.jpg`))
    t.equal(other.statusCode, 400, 'another origin stays refused')
    t.equal(
      other.json().message,
      `url host other.test:${upstream.port} is not in the allow-list of remote image origins`,
    )
  },
)

t.test('redirects: up to 3 followed, a 4th refused, a redirect off the allow-list refused', async (t) => {
  const upstream = await startUpstream(t, serveImages)
  const { app } = await buildImageApp(
    t,
    {},
    { limits: { remoteOrigins: [upstream.origin] }, isAddressRefused: () => false },
  )
  const three = await app.inject(image(`${upstream.origin}/redirect?hops=3`))
  t.equal(three.statusCode, 200, '3 redirects')
  const four = await app.inject(image(`${upstream.origin}/redirect?hops=4`))
  t.equal(four.statusCode, 502, '4 redirects')
  t.equal(four.json().code, 'COURIER_ERR_IMAGE_UPSTREAM_FAILED')
  t.notOk(four.json().message.includes('redirect'), '5xx answers carry no detail')
  t.ok(four.json().digest, 'but a digest for the log')
  const away = await app.inject(image(`${upstream.origin}/away`))
  t.equal(away.statusCode, 400)
  t.equal(away.json().message, 'url redirects to elsewhere.example, which is not in the allow-list')
})

t.test('a body over the cap is refused; a missing remote image is a bad gateway', async (t) => {
  const upstream = await startUpstream(t, serveImages)
  const { app } = await buildImageApp(
    t,
    {},
    {
      limits: { remoteOrigins: [upstream.origin], maxSourceBytes: 1000 },
      isAddressRefused: () => false,
    },
  )
  const big = await app.inject(image(`${upstream.origin}/photo.jpg`))
  t.equal(big.statusCode, 502)
  t.equal(big.json().code, 'COURIER_ERR_IMAGE_UPSTREAM_FAILED')
  const missing = await app.inject(image(`${upstream.origin}/none.jpg`))
  t.equal(missing.statusCode, 502)
})

t.test('an upstream that does not answer in time is a 504', async (t) => {
  const upstream = await startUpstream(t, serveImages)
  const { app } = await buildImageApp(
    t,
    {},
    {
      limits: { remoteOrigins: [upstream.origin], fetchTimeoutMs: 300 },
      isAddressRefused: () => false,
    },
  )
  const response = await app.inject(image(`${upstream.origin}/hang`))
  t.equal(response.statusCode, 504)
  t.equal(response.json().code, 'COURIER_ERR_IMAGE_UPSTREAM_TIMEOUT')
})

t.test('an allow-list entry that is not an origin stops registration', async (t) => {
  await t.rejects(buildImageApp(t, {}, { limits: { remoteOrigins: ['https://images.example/path'] } }), {
    code: 'COURIER_ERR_OPTION_INVALID',
  })
  await t.rejects(buildImageApp(t, {}, { limits: { remoteOrigins: ['ftp://images.example'] } }), {
    code: 'COURIER_ERR_OPTION_INVALID',
  })
})
