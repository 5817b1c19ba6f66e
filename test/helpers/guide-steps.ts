/**
 * docs/your-site.md as steps a test applies: each code block whose header says where it goes (`file=` the file;
 * `create`, `append`, or `after=`/`before=` the one line it goes next to), and each image of the reader's own that a
 * block names (`image=` the file, `width=`, `height=`: a test stands in a generated photograph of that size). Used by
 * the guide's test (test/guide/) and the adoption test (test/adoption/), each on a copy of the repository.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const guidePath = path.join(projectRoot, 'docs', 'your-site.md')

/** One code block of the guide and where it goes. */
export interface GuideStep {
  file: string
  action:
    | { kind: 'create' }
    | { kind: 'append' }
    | { kind: 'after' | 'before'; line: string }
    | { kind: 'image'; width: number; height: number }
  text: string
}

const fence = /^```\w*\s+file=(\S+)\s+(create|append|after=(.*)|before=(.*))$/
const imageFence = /^```\w*\s+image=(\S+)\s+width=(\d+)\s+height=(\d+)$/

/** The guide's code blocks that say where they go, in order. A block whose header is malformed throws. */
export function readGuideSteps(markdown: string): GuideStep[] {
  const lines = markdown.split('\n')
  const steps: GuideStep[] = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (!line.startsWith('```') || !(line.includes('file=') || line.includes('image='))) continue
    const header = fence.exec(line)
    const image = imageFence.exec(line)
    if (!header && !image) throw new Error(`guide line ${index + 1}: a block header the test cannot read: ${line}`)
    const body: string[] = []
    for (index++; index < lines.length && !lines[index]!.startsWith('```'); index++) body.push(lines[index]!)
    const text = `${body.join('\n')}\n`
    if (image) {
      steps.push({
        file: image[1]!,
        action: { kind: 'image', width: Number(image[2]), height: Number(image[3]) },
        text,
      })
      continue
    }
    const [, file, word, after, before] = header!
    const action: GuideStep['action'] =
      after !== undefined
        ? { kind: 'after', line: after }
        : before !== undefined
          ? { kind: 'before', line: before }
          : { kind: word === 'create' ? 'create' : 'append' }
    steps.push({ file: file!, action, text })
  }
  return steps
}

/** A photograph-like JPEG of the given size (a gradient with noise: it compresses like a photograph, not like a flat
 * colour), standing in for the reader's own picture. */
async function standInPhotograph(file: string, width: number, height: number): Promise<void> {
  const { default: sharp } = await import('sharp')
  const pixels = Buffer.alloc(width * height * 3)
  let seed = 7
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      const noise = seed % 24
      const at = (y * width + x) * 3
      pixels[at] = Math.min(255, Math.round((x / width) * 200) + noise)
      pixels[at + 1] = Math.min(255, Math.round((y / height) * 180) + noise)
      pixels[at + 2] = Math.min(255, 120 + noise)
    }
  }
  mkdirSync(path.dirname(file), { recursive: true })
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toFile(file)
}

/** Applies one step to the copy at `root`; an anchor line must occur exactly once in its file. */
export async function applyStep(root: string, step: GuideStep): Promise<void> {
  const file = path.join(root, step.file)
  if (step.action.kind === 'image') {
    if (existsSync(file))
      throw new Error(`${step.file} exists already: the guide says to add an image of one's own there`)
    await standInPhotograph(file, step.action.width, step.action.height)
    return
  }
  if (step.action.kind === 'create') {
    if (existsSync(file)) throw new Error(`${step.file} exists already: the guide says to create it`)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, step.text)
    return
  }
  const content = readFileSync(file, 'utf8')
  if (step.action.kind === 'append') {
    writeFileSync(file, `${content}${content.endsWith('\n') ? '' : '\n'}${step.text}`)
    return
  }
  const anchor = step.action.line
  const lines = content.split('\n')
  const found = lines.flatMap((line, index) => (line === anchor ? [index] : []))
  if (found.length !== 1)
    throw new Error(`${step.file}: the line ${JSON.stringify(anchor)} occurs ${found.length} times`)
  const at = step.action.kind === 'after' ? found[0]! + 1 : found[0]!
  lines.splice(at, 0, ...step.text.replace(/\n$/, '').split('\n'))
  writeFileSync(file, lines.join('\n'))
}

/** The repository's own files in a new temporary folder, without its builds, caches and installed packages (those are
 * linked). The caller removes it. */
export function copyRepository(prefix: string): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  const skipped = new Set(['node_modules', 'dist', 'dist-test', '.git', '.image-cache', 'results'])
  cpSync(projectRoot, root, {
    recursive: true,
    filter: (source) => !skipped.has(path.basename(source)) || source === projectRoot,
  })
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir')
  return root
}

export function removeCopy(root: string): void {
  rmSync(root, { recursive: true, force: true })
}
