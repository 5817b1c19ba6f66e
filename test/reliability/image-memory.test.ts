/**
 * Memory under the worst accepted input (docs/images.md, "Memory"): a small PNG that declares 7000x7000 pixels (just
 * under the 50 Mpx limit) requested at the largest width in every output format at once, so the queue runs at its
 * full concurrency with more waiting. The optimizer runs in a process of its own (test/helpers/image-server.ts), and
 * its peak resident set (VmHWM, Linux) must stay under the figure the docs state.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import t from 'tap'
import { imageOptimizer } from '../../config/images.ts'
import { temporaryFolder } from '../helpers/images.ts'
import { readStartCommand } from '../../src/build/start-command.ts'
import { projectRoot } from './server-process.ts'

/** The figure docs/images.md states for one optimizer process, in MiB. */
const peakRssMiB = 640

t.test('docs/images.md states the figure this test holds', async (t) => {
  const docs = readFileSync(new URL('../../docs/images.md', import.meta.url), 'utf8')
  t.match(docs, /^## Memory$/m, 'a Memory section (config/images.ts cites it)')
  t.match(docs, `a peak RSS under ${peakRssMiB} MiB`, `the stated figure is ${peakRssMiB} MiB`)
})

t.test(`peak RSS stays under ${peakRssMiB} MiB with 7000x7000 PNGs at full concurrency`, async (t) => {
  const publicRoot = temporaryFolder(t, 'public')
  mkdirSync(path.join(publicRoot, 'images'))
  const bomb = await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#808080' } })
    .png({ compressionLevel: 9 })
    .toBuffer()
  t.ok(bomb.length < 400_000, `a small file (${bomb.length} bytes) for 49 Mpx`)
  t.ok(7000 * 7000 <= imageOptimizer.maxInputPixels, 'within the pixel limit: it is decoded, not refused')
  // Two files of the same bytes: two AVIF encodes at the output cap run at once (one file would share one transform).
  writeFileSync(path.join(publicRoot, 'images', 'bomb.png'), bomb)
  writeFileSync(path.join(publicRoot, 'images', 'bomb-2.png'), bomb)

  // The configured limits, but a time-out long enough for a machine busy with other work: a transform that timed out
  // would free its memory early and hide the peak this test is about.
  const limits = JSON.stringify({ transformTimeoutS: 120 })
  // With the memory settings of `npm start` (its variables, e.g. MALLOC_ARENA_MAX, and Node's flags): the process
  // users run, whose allocator arenas and heap growth the figure is about.
  const start = await readStartCommand(projectRoot)
  const server = spawn(
    process.execPath,
    [
      ...start.nodeArgs,
      '--import',
      'tsx',
      'test/helpers/image-server.ts',
      publicRoot,
      path.join(publicRoot, 'cache'),
      limits,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...start.env } },
  )
  t.teardown(() => {
    server.kill('SIGKILL')
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`the image server exited (${code})`)))
    server.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString('utf8'))
      if (match) resolve(Number(match[1]))
    })
  })
  const peakKiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1])
  const idleKiB = peakKiB()

  // Distinct variants (no two share a transform): more than the queue runs at once, at the widths that cost most.
  // The first two to run are the costliest pair: two AVIF encodes of the largest output.
  const variants = [
    ['bomb', '3840', 'image/avif'],
    ['bomb-2', '3840', 'image/avif'],
    ['bomb', '3840', 'image/webp'],
    ['bomb-2', '3840', '*/*'],
    ['bomb', '2048', 'image/avif'],
    ['bomb-2', '1920', 'image/webp'],
  ] as const
  t.ok(variants.length > imageOptimizer.maxConcurrentTransforms, 'the queue runs at its full concurrency')
  const responses = await Promise.all(
    variants.map(async ([file, width, accept]) => {
      const response = await fetch(`http://127.0.0.1:${port}/_next/image?url=%2Fimages%2F${file}.png&w=${width}`, {
        headers: { accept },
      })
      const bytes = Buffer.from(await response.arrayBuffer())
      return { width: `${file} ${width}`, accept, status: response.status, bytes }
    }),
  )
  for (const { width, accept, status, bytes } of responses) {
    if (status !== 200) {
      t.fail(`w=${width} ${accept}: ${status} ${bytes.toString('utf8').slice(0, 160)}`)
      continue
    }
    const metadata = await sharp(bytes).metadata()
    t.ok(
      (metadata.width ?? 0) * (metadata.height ?? 0) <= imageOptimizer.maxOutputPixels,
      `w=${width} ${accept}: at most ${imageOptimizer.maxOutputPixels} pixels out`,
    )
  }
  const peakMiB = peakKiB() / 1024
  t.comment(`idle ${Math.round(idleKiB / 1024)} MiB, peak ${Math.round(peakMiB)} MiB`)
  t.ok(peakMiB < peakRssMiB, `peak RSS ${Math.round(peakMiB)} MiB < ${peakRssMiB} MiB`)
})
