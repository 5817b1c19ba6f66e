import t, { type Test } from 'tap'
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { buildImageApp, jpegOf, temporaryFolder, type ImageApp } from '../helpers/images.ts'

// Photographs big enough that no cache entry fits the tiny file system below, and distinct widths for fresh entries.
const files = { 'images/photo.jpg': await jpegOf(1600, 1200) }
const widths = [640, 750, 828, 1080, 1200]
const request = (width: number) => ({
  url: `/_next/image?url=${encodeURIComponent('/images/photo.jpg')}&w=${width}`,
  headers: { accept: 'image/webp' },
})

/** Mounts a tmpfs of `size` (e.g. `16k`) at a fresh folder, unmounted when the test ends. */
function mountTmpfs(t: Test, size: string): string {
  const folder = temporaryFolder(t, 'mount')
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', folder], { stdio: 'ignore' })
  t.teardown(() => execFileSync('umount', [folder], { stdio: 'ignore' }))
  return folder
}

/**
 * Read-only and full folders are real file systems (a tmpfs). Mounting one needs a mount namespace of the test's own:
 * `unshare -rm` makes one without privileges (a user namespace in which this user is root; Debian and Ubuntu allow
 * them), and the two tests run there, in a child process of this very file. Where no user namespace may be made, they
 * run only if this process may mount (root), else they are skipped (the injected ENOSPC test still covers a full disk).
 */
const inMountNamespace = process.env.COURIER_MOUNT_NAMESPACE === '1'
const namespaceAllowed = !inMountNamespace && spawnSync('unshare', ['-rm', 'true'], { stdio: 'ignore' }).status === 0

function mountingAllowed(): boolean {
  if (inMountNamespace) return true
  if (namespaceAllowed) return false
  const probe = temporaryFolder(t, 'probe')
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', probe], { stdio: 'ignore' })
    execFileSync('umount', [probe], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const skipMounts = mountingAllowed()
  ? false
  : namespaceAllowed
    ? 'run in a mount namespace of their own (the test before)'
    : 'neither a user namespace (unshare -rm) nor mounting is allowed here (the injected ENOSPC test covers a full disk)'

t.test(
  'read-only and full cache folders, in a mount namespace of their own (unshare -rm)',
  { skip: !namespaceAllowed },
  async (t) => {
    // The child is this file run by node inside the namespace: only its two mount tests, reported as TAP on stdout.
    // Node strips the types itself: none of tap's loaders (its arguments, NODE_OPTIONS) or its TAP_* variables.
    const environment = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('TAP') && name !== 'NODE_OPTIONS'),
    )
    // Not spawnSync: this process keeps answering its runner while the child works.
    const child = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'unshare',
        ['-rm', '--', process.execPath, import.meta.filename],
        // The child's own time limit (tap's 30 s when a file runs alone) as its runner's: this test's.
        { env: { ...environment, COURIER_MOUNT_NAMESPACE: '1', TAP_TIMEOUT: '240' }, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      )
    })
    const failures = child.stdout.split('\n').filter((line) => /^\s*not ok /.test(line))
    t.equal(child.status, 0, failures.join('\n') || child.stderr.slice(-2000) || 'the tests in the namespace passed')
    t.match(child.stdout, /^ok \d+ - a read-only cache folder(?!.*# SKIP)/m, 'the read-only folder test ran and passed')
    t.match(child.stdout, /^ok \d+ - a full cache folder(?!.*# SKIP)/m, 'the full folder test ran and passed')
  },
)

t.test(
  'the cache folder removed while serving: every response succeeds, the folder is made again',
  { skip: inMountNamespace },
  async (t) => {
    // Entries are streamed from their files (none kept in memory), so a vanished file is seen at once.
    const { app, cacheDir, logs } = await buildImageApp(t, files, { limits: { memoryEntryMaxBytes: 0 } })
    const first = await app.inject(request(widths[0]!))
    t.equal(first.headers['x-image-cache'], 'MISS')
    rmSync(cacheDir, { recursive: true, force: true })

    const again = await app.inject(request(widths[0]!))
    t.equal(again.statusCode, 200, 'an entry whose file vanished is served')
    t.equal(again.headers['x-image-cache'], 'MISS', 'made again, not streamed from a missing file')
    t.same(again.rawPayload, first.rawPayload)
    const next = await app.inject(request(widths[1]!))
    t.equal(next.statusCode, 200)
    const hit = await app.inject(request(widths[1]!))
    t.equal(hit.headers['x-image-cache'], 'HIT', 'the folder was made again and caches once more')
    t.equal(logs().filter((line) => line.msg === 'image cache entry unreadable' && line.level === 40).length, 1)
    t.notOk(
      logs().some((line) => line.level >= 50),
      'nothing at error level',
    )
  },
)

/** Every width is served (200, MISS) though no write lands; the failures are seen, logged once at warn with `code`. */
async function expectServedUncached(t: Test, { app, logs }: ImageApp, code: string): Promise<void> {
  for (const width of widths) {
    const response = await app.inject(request(width))
    t.equal(response.statusCode, 200, `w=${width} served`)
    t.equal(response.headers['x-image-cache'], 'MISS')
  }
  const failures = logs().filter((line) => line.msg === 'image cache write failed')
  t.equal(failures.length, widths.length, 'every failed write is seen')
  t.equal(failures.filter((line) => line.level === 40).length, 1, 'logged once as a warning, then at debug level')
  t.match(failures[0], { err: { code } })
}

t.test(
  'a read-only cache folder (tmpfs remounted read-only): responses succeed uncached, one warning',
  { skip: skipMounts },
  async (t) => {
    const folder = mountTmpfs(t, '4m')
    const cacheDir = path.join(folder, 'images')
    mkdirSync(cacheDir)
    execFileSync('mount', ['-o', 'remount,ro', folder])
    await expectServedUncached(t, await buildImageApp(t, files, { cacheDir }), 'EROFS')
  },
)

t.test(
  'a full cache folder (a 16 KiB tmpfs, filled): responses succeed uncached, one warning',
  { skip: skipMounts },
  async (t) => {
    const folder = mountTmpfs(t, '16k')
    writeFileSync(path.join(folder, 'filler'), Buffer.alloc(16 * 1024))
    await expectServedUncached(t, await buildImageApp(t, files, { cacheDir: folder }), 'ENOSPC')
  },
)

t.test(
  'a full disk, injected (ENOSPC from every write): responses succeed uncached, one warning',
  { skip: inMountNamespace },
  async (t) => {
    const fsPromises = await import('node:fs/promises')
    const { DiskImageCache } = await t.mockImport<typeof import('../../src/images/disk-cache.ts')>(
      '../../src/images/disk-cache.ts',
      {
        'node:fs/promises': {
          ...fsPromises,
          writeFile: async () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
          },
        },
      },
    )
    const lines: Array<{ level: string; message: string }> = []
    const log = Object.fromEntries(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace'].map((level) => [
        level,
        (_fields: unknown, message: string) => lines.push({ level, message }),
      ]),
    )
    const cache = new DiskImageCache({
      dir: temporaryFolder(t, 'cache'),
      maxBytes: 1024 * 1024,
      memoryEntryMaxBytes: 1024,
      memoryMaxBytes: 1024 * 1024,
      log: log as never,
    })
    await cache.open()
    const keys = [1, 2, 3].map((index) => String(index).repeat(64).slice(0, 64).replace(/\d/g, 'a'))
    for (const [offset, key] of keys.entries()) {
      const index = offset + 1
      const stored = await cache.put(
        {
          key,
          contentType: 'image/webp',
          filename: 'x.webp',
          etag: `"${index}"`,
          maxAgeS: 60,
          expiresAt: Date.now() + 60_000,
          size: 3,
        },
        Buffer.from('abc'),
      )
      t.equal(stored, undefined, `put ${index}: nothing cached`)
    }
    t.same(
      lines.map((line) => `${line.level} ${line.message}`),
      ['warn image cache write failed', 'debug image cache write failed', 'debug image cache write failed'],
    )
    t.ok(
      keys.every((key) => cache.get(key) === undefined),
      'and nothing to find',
    )
  },
)
