/**
 * Step 1 of a deploy: the deployment to start. From `--source`, a project folder of its own under
 * `<state>/releases/<deployment id>/`: the checkout's build sources, its content and public files, a linked copy of
 * its node_modules (deploy/linked-copy.ts), built there with `npm run build`. Everything the build records
 * (dist/vite.config.json's output folders) is relative to that folder, and the compiled server finds its project by
 * the package.json above it, so a deployment starts wherever the folder is moved to. From `--dist`, a build made
 * elsewhere, in its own project.
 */
import { spawn } from 'node:child_process'
import { cp, mkdir, readdir, readFile, rename, rm, stat, symlink, unlink } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { listBuildSources } from '../src/build/index.ts'
import { linkedCopy } from './linked-copy.ts'
import type { StatePaths } from './state.ts'

export interface Release {
  id: string
  /** The project folder the instances run in (its package.json, client/public, content, node_modules). */
  root: string
  /** Its build: `<root>/dist` for a release made here. */
  distDir: string
}

/** What a release folder holds beside the build sources: what the server reads at run time. */
const runTimeFiles = ['content', '.node-version']

/** Variables of a build that would make another build than `npm run build` in a checkout (a test build, elsewhere). */
const buildVariablesLeftOut = ['DIST_DIR', 'COURIER_BUILD', 'COURIER_TEST_ROUTES', 'NODE_OPTIONS']

async function deploymentIdOf(distDir: string): Promise<string> {
  const file = path.join(distDir, 'deployment.json')
  const text = await readFile(file, 'utf8').catch(() => undefined)
  if (text === undefined) {
    throw new Error(`no build at ${distDir} (no deployment.json): build it with \`npm run build\``)
  }
  return (JSON.parse(text) as { deploymentId: string }).deploymentId
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  )

/** A build made elsewhere (`--dist`): it must sit in a project, as `npm run build` leaves it. */
export async function takeDist(dist: string): Promise<Release> {
  const distDir = path.resolve(dist)
  const id = await deploymentIdOf(distDir)
  if (!(await exists(path.join(distDir, 'node', 'server.js')))) {
    throw new Error(`no compiled server at ${path.join(distDir, 'node', 'server.js')}: build with \`npm run build\``)
  }
  for (let folder = path.dirname(distDir); ; folder = path.dirname(folder)) {
    if (await exists(path.join(folder, 'package.json'))) {
      if (!(await exists(path.join(folder, 'node_modules')))) {
        throw new Error(`${folder} (the project of ${distDir}) has no node_modules: run \`npm ci\` there`)
      }
      return { id, root: folder, distDir }
    }
    if (path.dirname(folder) === folder) {
      throw new Error(`${distDir} is not inside a project (no package.json above it)`)
    }
  }
}

/** Removes build folders a deploy killed outright (SIGKILL, power loss) left behind; called under the deploy lock. */
export async function removeStaleStaging(paths: StatePaths): Promise<void> {
  for (const name of await readdir(paths.releases).catch(() => [] as string[])) {
    if (name.startsWith('.staging-')) await rm(path.join(paths.releases, name), { recursive: true, force: true })
  }
}

const groupAlive = (groupId: number): boolean => {
  try {
    process.kill(-groupId, 0)
    return true
  } catch {
    return false
  }
}

async function waitGroupGone(groupId: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs
  while (groupAlive(groupId) && Date.now() < deadline) await sleep(50)
  return !groupAlive(groupId)
}

/** Resolves once no process of the group is left: after SIGTERM it has 5 s, then SIGKILL. */
async function groupStopped(groupId: number): Promise<void> {
  if (await waitGroupGone(groupId, 5_000)) return
  process.kill(-groupId, 'SIGKILL')
  await waitGroupGone(groupId, 2_000)
}

/** `npm run build` in `root`, its output on stderr (stdout is the deploy's JSON lines), in a process group of its own
 * so that an interrupted deploy stops the whole build. */
function runBuild(root: string, signal: AbortSignal): Promise<void> {
  const env = { ...process.env }
  for (const name of buildVariablesLeftOut) delete env[name]
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd: root, env, stdio: ['ignore', 2, 2], detached: true })
    const stop = () => child.pid && process.kill(-child.pid, 'SIGTERM')
    signal.addEventListener('abort', stop, { once: true })
    child.once('error', reject)
    child.once('exit', (code, killedBy) => {
      signal.removeEventListener('abort', stop)
      // npm exits on SIGTERM before Vite and its workers do: the deploy waits for the whole group.
      if (signal.aborted && child.pid) void groupStopped(child.pid).then(() => reject(signal.reason))
      else if (signal.aborted) reject(signal.reason)
      else if (code === 0) resolve()
      else {
        const how = killedBy ?? `exit ${code}`
        reject(new Error(`the build failed (\`npm run build\` in ${root}: ${how}; its output is above)`))
      }
    })
  })
}

/**
 * Builds `source` into `<state>/releases/<id>/`. A release of that id already there is replaced unless `keep(id)`
 * says it is live (then the new build is dropped and the live one returned: the same sources make the same id).
 */
export async function buildRelease(
  source: string,
  paths: StatePaths,
  isLive: (id: string) => boolean,
  signal: AbortSignal,
): Promise<Release> {
  const sourceRoot = path.resolve(source)
  if (!(await exists(path.join(sourceRoot, 'package.json')))) {
    throw new Error(`--source ${sourceRoot} is not a checkout of the project (no package.json)`)
  }
  if (!(await exists(path.join(sourceRoot, 'node_modules')))) {
    throw new Error(`--source ${sourceRoot} has no node_modules: run \`npm ci\` there first`)
  }
  const staging = path.join(paths.releases, `.staging-${process.pid}-${Date.now()}`)
  await mkdir(staging, { recursive: true })
  try {
    for (const entry of [...listBuildSources(sourceRoot), ...runTimeFiles]) {
      if (await exists(path.join(sourceRoot, entry))) {
        await cp(path.join(sourceRoot, entry), path.join(staging, entry), { recursive: true })
      }
    }
    // The compiled server imports React, sharp, ... from node_modules, found from its own folder upwards, and runs on
    // the Node the project pins (node_modules/.bin/node). The build reads the checkout's packages through a link; the
    // release then gets a linked copy of its own, so a later `npm ci` in the checkout changes nothing that runs, and
    // the folder moves to another place or machine whole.
    const packages = path.join(staging, 'node_modules')
    await symlink(path.join(sourceRoot, 'node_modules'), packages, 'dir')
    signal.throwIfAborted()
    await runBuild(staging, signal)
    await unlink(packages)
    await linkedCopy(path.join(sourceRoot, 'node_modules'), packages)
    signal.throwIfAborted()
    const id = await deploymentIdOf(path.join(staging, 'dist'))
    const root = path.join(paths.releases, id)
    if (isLive(id)) return { id, root, distDir: path.join(root, 'dist') }
    await rm(root, { recursive: true, force: true })
    await rename(staging, root)
    return { id, root, distDir: path.join(root, 'dist') }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}
