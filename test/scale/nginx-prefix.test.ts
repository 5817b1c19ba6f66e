/**
 * deploy/nginx-prefix.ts, deploy/shared-assets.ts and the deploy script's input checks: the routing nginx is given, the
 * asset folder's layout and retention, and refusals of bad input with a clear message. `nginx -t` (Debian's nginx) checks every file it writes.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { renderRouting, writePrefix } from '../../deploy/nginx-prefix.ts'
import { publishAssets, publishedChunksDir, pruneAssets } from '../../deploy/shared-assets.ts'
import { projectRoot } from '../reliability/server-process.ts'

async function temporary(t: Test, prefix: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), prefix))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  return folder
}

t.test('routing: one upstream per live deployment, documents and unknown ids to the newest', async (t) => {
  const text = renderRouting({
    deployments: [
      { id: 'old-1', servers: ['127.0.0.1:4001'] },
      { id: 'new.2', servers: ['127.0.0.1:4002', '127.0.0.1:4003'] },
    ],
  })
  t.match(text, /upstream courier_newest \{\n  server 127\.0\.0\.1:4002 [^\n]*\n  server 127\.0\.0\.1:4003 /)
  t.match(text, /upstream courier_deployment_0 \{\n  server 127\.0\.0\.1:4001 /)
  t.match(text, /default courier_newest;/)
  t.match(text, /"old-1" courier_deployment_0;/)
  t.match(text, /"new\.2" courier_deployment_1;/)
  t.match(text, /keepalive 32;\n  keepalive_timeout 4s;/)
  // Images: the same instances, in upstreams that count no failure (an optimizer's load never takes an instance out).
  t.match(text, /upstream courier_deployment_1 \{\n  server 127\.0\.0\.1:4002 max_fails=1 fail_timeout=2s;/)
  t.match(
    text,
    /upstream courier_images_newest \{\n  server 127\.0\.0\.1:4002 max_fails=0;\n  server 127\.0\.0\.1:4003 max_fails=0;/,
  )
  t.match(text, /upstream courier_images_deployment_0 \{\n  server 127\.0\.0\.1:4001 max_fails=0;/)
  t.match(
    text,
    /map \$courier_requested_deployment \$courier_image_upstream \{\n  default courier_images_newest;\n  "old-1" courier_images_deployment_0;\n  "new\.2" courier_images_deployment_1;\n\}/,
  )
  const bad: Array<[Parameters<typeof renderRouting>[0], RegExp]> = [
    [{ deployments: [] }, /at least one/],
    [{ deployments: [{ id: 'a b', servers: ['127.0.0.1:1'] }] }, /invalid deployment id/],
    [{ deployments: [{ id: 'x";', servers: ['127.0.0.1:1'] }] }, /invalid deployment id/],
    [{ deployments: [{ id: 'a', servers: [] }] }, /no instance/],
    [{ deployments: [{ id: 'a', servers: ['127.0.0.1:1; include /etc/passwd'] }] }, /invalid instance address/],
  ]
  for (const [routing, message] of bad) t.throws(() => renderRouting(routing), { message }, JSON.stringify(routing))
})

t.test('the prefix written for nginx passes nginx -t', async (t) => {
  const prefix = await temporary(t, 'courier-prefix-')
  const { configFile } = await writePrefix({
    prefix,
    listen: '127.0.0.1:18999',
    deployments: [{ id: 'a', servers: ['127.0.0.1:4001'] }],
  })
  const checked = spawnSync('nginx', ['-t', '-p', prefix, '-c', configFile], { encoding: 'utf8' })
  t.equal(checked.status, 0, checked.stderr)
  await t.rejects(
    writePrefix({ prefix, listen: 'everywhere', deployments: [{ id: 'a', servers: ['127.0.0.1:4001'] }] }),
    { message: /invalid listen address/ },
  )
})

t.test(
  'with TLS: the HTTPS server and the plain redirect server pass nginx -t; bad TLS options are refused',
  async (t) => {
    const prefix = await temporary(t, 'courier-prefix-tls-')
    const certificate = path.join(prefix, 'cert.pem')
    const key = path.join(prefix, 'key.pem')
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        certificate,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,DNS:www.localhost',
      ],
      { encoding: 'utf8' },
    )
    t.equal(made.status, 0, made.stderr)
    const deployments = [{ id: 'a', servers: ['127.0.0.1:4001', '127.0.0.1:4002'], down: ['127.0.0.1:4002'] }]
    const tls = { listen: '127.0.0.1:18443', certificate, key }
    const { configFile } = await writePrefix({ prefix, listen: '127.0.0.1:18080', tls, deployments })
    const checked = spawnSync('nginx', ['-t', '-p', prefix, '-c', configFile], { encoding: 'utf8' })
    t.equal(checked.status, 0, checked.stderr)
    const listen = await readFile(path.join(prefix, 'listen.conf'), 'utf8')
    t.match(listen, /listen 127\.0\.0\.1:18443 ssl http2;/)
    t.match(listen, `ssl_certificate ${certificate};`)
    t.match(listen, /server_name localhost www\.localhost;/, "HTTPS answers the certificate's names")
    const redirect = await readFile(path.join(prefix, 'redirect.conf'), 'utf8')
    t.match(redirect, /listen 127\.0\.0\.1:18080;\n  server_name localhost www\.localhost;/)
    t.match(redirect, /return 301 https:\/\/localhost:18443\$request_uri;/, "to the certificate's first name")
    t.match(redirect, /return 308 https:\/\/localhost:18443\$request_uri;/)
    t.notMatch(redirect, /\$host/, "never the request's Host")
    t.match(redirect, /root \.\.\/acme;/)
    t.match(
      redirect,
      /listen 127\.0\.0\.1:18080 default_server;[\s\S]*?location \/ \{\n    return 444;/,
      'other names: nothing',
    )
    t.match(redirect, /listen 127\.0\.0\.1:18443 ssl http2 default_server;\n  ssl_reject_handshake on;/)
    // SITE_URL, when it is an HTTPS origin, is where the plain port redirects, and a name HTTPS answers.
    await writePrefix({ prefix, listen: '127.0.0.1:18080', tls, siteUrl: 'https://Courier.example', deployments })
    t.match(
      await readFile(path.join(prefix, 'redirect.conf'), 'utf8'),
      /return 301 https:\/\/courier\.example\$request_uri;/,
    )
    t.match(
      await readFile(path.join(prefix, 'listen.conf'), 'utf8'),
      /server_name localhost www\.localhost courier\.example;/,
    )
    t.match(
      await readFile(path.join(prefix, 'deployments.conf'), 'utf8'),
      /server 127\.0\.0\.1:4002 max_fails=1 fail_timeout=2s down;/,
      'an instance out of rotation is down',
    )
    // On 443 the redirect names no port.
    await writePrefix({ prefix, listen: '127.0.0.1:18080', tls: { ...tls, listen: '127.0.0.1:443' }, deployments })
    t.match(await readFile(path.join(prefix, 'redirect.conf'), 'utf8'), /return 301 https:\/\/localhost\$request_uri;/)
    const bad: Array<[Partial<typeof tls>, RegExp]> = [
      [{ listen: 'all' }, /invalid HTTPS listen address/],
      [{ listen: '127.0.0.1:18080' }, /must differ from the plain one/],
      [{ certificate: 'relative.pem' }, /the TLS certificate must be an absolute path/],
      [{ key: '/etc/x.pem; include /etc/passwd' }, /the TLS key must be an absolute path without spaces/],
    ]
    for (const [change, message] of bad) {
      await t.rejects(
        writePrefix({ prefix, listen: '127.0.0.1:18080', tls: { ...tls, ...change }, deployments }),
        { message },
        JSON.stringify(change),
      )
    }
  },
)

t.test(
  'assets: a folder per deployment, the last N kept, identical files linked, one name of other bytes kept apart',
  async (t) => {
    const assets = await temporary(t, 'courier-assets-')
    const builds = await temporary(t, 'courier-builds-')
    const build = async (id: string, files: Record<string, string>) => {
      const chunks = path.join(builds, id, 'client', 'chunks')
      await mkdir(chunks, { recursive: true })
      for (const [name, text] of Object.entries(files)) await writeFile(path.join(chunks, name), text)
      return path.join(builds, id)
    }
    const served = (id: string, name: string) => readFile(path.join(publishedChunksDir(assets, id), name), 'utf8')
    for (const [index, id] of ['d1', 'd2', 'd3', 'd4'].entries()) {
      // Published in order; the manifests' times must differ for the order to be known.
      await new Promise((resolve) => setTimeout(resolve, 5 + index))
      t.same(await publishAssets(await build(id, { 'shared-AAAA.js': 'shared', [`page-${id}.js`]: id }), assets, id), {
        files: 2,
        linked: index === 0 ? 0 : 1,
      })
    }
    const inode = async (id: string) => (await stat(path.join(publishedChunksDir(assets, id), 'shared-AAAA.js'))).ino
    t.equal(
      await inode('d4'),
      await inode('d1'),
      "a file of the same bytes as a kept deployment's is a hard link to it",
    )
    t.same(await pruneAssets(assets, 2, ['d1']), ['d2'], 'the last two kept, and d1, still live')
    t.same((await readdir(path.join(assets, 'by-deployment'))).sort(), ['d1', 'd3', 'd4'])
    t.same(await pruneAssets(assets, 1), ['d1', 'd3'])
    t.same(await readdir(path.join(assets, 'by-deployment')), ['d4'])
    t.equal(await served('d4', 'shared-AAAA.js'), 'shared', 'the linked file outlives the folder it was linked from')
    await t.rejects(publishAssets(path.join(builds, 'd1'), assets, '../escape'), { message: /invalid deployment id/ })
    await t.rejects(publishAssets(path.join(builds, 'd1'), assets, '..'), { message: /invalid deployment id/ })

    // One name, other bytes (a chunk whose imports another deployment id stamps, its `.br`, a delta): each deployment
    // keeps its own; the older one's file is not touched.
    t.same(
      await publishAssets(
        await build('d5', { 'shared-AAAA.js': 'shared, stamped for d5', 'shared-AAAA.js.br': 'br of d5' }),
        assets,
        'd5',
      ),
      { files: 2, linked: 0 },
    )
    t.equal(await served('d4', 'shared-AAAA.js'), 'shared', "d4's bytes stay d4's")
    t.equal(await served('d5', 'shared-AAAA.js'), 'shared, stamped for d5')
    // The same id again with the same bytes (a deploy run again after an interruption): nothing to do.
    t.same(await publishAssets(path.join(builds, 'd5'), assets, 'd5'), { files: 2, linked: 0 })
    // The same id with other bytes (a pinned DEPLOYMENT_ID reused for another build): refused, nothing written.
    await writeFile(path.join(builds, 'd5', 'client', 'chunks', 'shared-AAAA.js.br'), 'another build')
    await writeFile(path.join(builds, 'd5', 'client', 'chunks', 'new-BBBB.js'), 'new')
    await t.rejects(publishAssets(path.join(builds, 'd5'), assets, 'd5'), {
      name: 'AssetConflictError',
      message: /deployment d5 was published before with other bytes for shared-AAAA\.js\.br/,
    })
    t.equal(await served('d5', 'shared-AAAA.js.br'), 'br of d5', "the deployment's file is as it was")
    t.notOk(
      existsSync(path.join(publishedChunksDir(assets, 'd5'), 'new-BBBB.js')),
      'and nothing of the refused build is written',
    )
  },
)

function withoutRunnerOptions(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _runnerOptions, ...env } = process.env
  return env
}

t.test('the deploy script refuses bad input with a clear message and exit code 1', async (t) => {
  const state = await temporary(t, 'courier-deploy-state-')
  const script = path.join(projectRoot, 'deploy', 'rolling-deploy.ts')
  const missingState = spawnSync(process.execPath, [script], {
    cwd: projectRoot,
    env: withoutRunnerOptions(),
    encoding: 'utf8',
    timeout: 60_000,
  })
  t.equal(missingState.status, 1, 'no --state: exit 1')
  t.match(missingState.stdout, /--state <dir> is required/)
  // A folder others cannot pass through (as a home folder may be): its state would be out of nginx's workers' reach.
  const closed = await temporary(t, 'courier-closed-')
  await chmod(closed, 0o700)
  const cases: Array<[string[], RegExp]> = [
    [['--instances', '0'], /--instances must be a whole number >= 1/],
    [['--keep', 'many'], /--keep must be a whole number >= 1/],
    [['--no-such-option'], /Unknown option/],
    [['--dist', path.join(state, 'missing-dist')], /no build at .*missing-dist \(no deployment\.json\)/],
    [['--listen', 'everywhere'], /--listen must be address:port/],
    [['--listen', '127.0.0.1:70000'], /--listen must be address:port/],
    [['--https-listen', '127.0.0.1:8443'], /HTTPS needs all three of --https-listen, --tls-cert and --tls-key/],
    [
      ['--https-listen', '127.0.0.1:8080', '--tls-cert', '/x.pem', '--tls-key', '/y.pem'],
      /--https-listen must differ from --listen/,
    ],
    [
      [
        '--https-listen',
        '127.0.0.1:8443',
        '--tls-cert',
        path.join(state, 'none.pem'),
        '--tls-key',
        path.join(state, 'none.key'),
      ],
      /cannot read the TLS certificate or key/,
    ],
    [['--service-manager', 'launchd'], /--service-manager must be none or systemd \(got "launchd"\)/],
    [['--stop', '--reload'], /two commands/],
    [['--reload'], /nothing deployed in .* \(no front-door\.json\)/],
    [['--source', state], /is not a checkout of the project \(no package\.json\)/],
    ...(process.getuid?.() === 0
      ? [
          [['--state', path.join(closed, 'state')], /nginx's workers \(user nobody\) cannot reach .* is mode 700/] as [
            string[],
            RegExp,
          ],
        ]
      : []),
  ]
  const env = withoutRunnerOptions()
  for (const [args, message] of cases) {
    const run = spawnSync(process.execPath, [script, '--state', state, ...args], {
      cwd: projectRoot,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    })
    t.equal(run.status, 1, `${args.join(' ')}: exit 1`)
    const line = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { msg?: string; error?: string }
    // Nothing is started for a refused command: no nginx prefix, no state file.
    t.notOk(existsSync(path.join(state, 'state.json')), `${args.join(' ')}: no state written`)
    t.equal(line.msg, 'deploy failed')
    t.match(line.error ?? '', message, args.join(' '))
  }
})
