import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildState } from '../../src/build/ensure-build.mjs'
import { hashSources } from '../../src/build/source-hash.mjs'

/** A project of a few sources and a build stamped with their hash, in a folder of its own. */
async function project(t: Test) {
  const root = await mkdtemp(path.join(tmpdir(), 'courier-ensure-build-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  await mkdir(path.join(root, 'src', 'pages'), { recursive: true })
  await mkdir(path.join(root, 'client'), { recursive: true })
  await writeFile(path.join(root, 'src', 'pages', 'loaders.ts'), 'export const a = 1\n')
  await writeFile(path.join(root, 'client', 'app.tsx'), 'export const b = 2\n')
  await writeFile(path.join(root, 'package.json'), '{}\n')
  const distDir = path.join(root, 'dist')
  const stamp = async (server: object | undefined, client: object | undefined) => {
    await rm(distDir, { recursive: true, force: true })
    await mkdir(path.join(distDir, 'node'), { recursive: true })
    if (server) await writeFile(path.join(distDir, 'node', 'build.json'), JSON.stringify(server))
    if (client) await writeFile(path.join(distDir, 'deployment.json'), JSON.stringify(client))
  }
  return { root, distDir, stamp }
}

t.test('a build stamped with the sources checked out is fresh; no build, or half a build, is missing', async (t) => {
  const { root, distDir, stamp } = await project(t)
  t.equal(buildState(root, distDir).state, 'missing', 'no build at all')
  const sourceHash = hashSources(root)
  await stamp({ deploymentId: 'd1', sourceHash }, undefined)
  t.equal(buildState(root, distDir).state, 'missing', 'a compiled server without its client build')
  await stamp(undefined, { deploymentId: 'd1' })
  t.equal(buildState(root, distDir).state, 'missing', 'a client build without the compiled server (a failed build)')
  await stamp({ deploymentId: 'd1', sourceHash }, { deploymentId: 'd1' })
  t.equal(buildState(root, distDir).state, 'fresh')
})

t.test('one byte of a server or client source, a new file or a removed one makes the build stale', async (t) => {
  const { root, distDir, stamp } = await project(t)
  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd1' })
  await writeFile(path.join(root, 'src', 'pages', 'loaders.ts'), 'export const a = 2\n')
  t.match(buildState(root, distDir), { state: 'stale', reason: /built from sources/ }, 'a server source changed')

  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd1' })
  await writeFile(path.join(root, 'client', 'extra.ts'), '')
  t.equal(buildState(root, distDir).state, 'stale', 'a new (empty) client file')

  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd1' })
  await rm(path.join(root, 'client', 'extra.ts'))
  t.equal(buildState(root, distDir).state, 'stale', 'a file removed')

  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd1' })
  await writeFile(path.join(root, 'README.md'), 'words\n')
  t.equal(buildState(root, distDir).state, 'fresh', 'a file no build reads changes nothing')
  for (const folder of ['docs', 'test', 'content', '.cache']) {
    await mkdir(path.join(root, folder), { recursive: true })
    await writeFile(path.join(root, folder, 'notes.md'), 'words\n')
  }
  t.equal(buildState(root, distDir).state, 'fresh', 'nor does a file of docs/, test/, content/ or a hidden folder')

  // A folder of the site's own code a page imports, which no list names: a source like the others.
  await mkdir(path.join(root, 'lib'))
  await writeFile(path.join(root, 'lib', 'prices.ts'), 'export const price = 1\n')
  t.equal(buildState(root, distDir).state, 'stale', "a new top-level folder of the site's code")
  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd1' })
  await writeFile(path.join(root, 'lib', 'prices.ts'), 'export const price = 2\n')
  t.equal(buildState(root, distDir).state, 'stale', 'one byte of it changed')
})

t.test('a compiled server and a client build of two different builds are stale together', async (t) => {
  const { root, distDir, stamp } = await project(t)
  await stamp({ deploymentId: 'd1', sourceHash: hashSources(root) }, { deploymentId: 'd2' })
  t.match(buildState(root, distDir), { state: 'stale', reason: /different builds/ })
})

t.test('the hash does not depend on the order files are listed in or on modification times', async (t) => {
  const { root } = await project(t)
  const before = hashSources(root)
  t.equal(hashSources(root, ['src', 'client', 'package.json']), hashSources(root, ['package.json', 'client', 'src']))
  await writeFile(path.join(root, 'client', 'app.tsx'), 'export const b = 2\n') // same bytes, new mtime
  t.equal(hashSources(root), before)
})
