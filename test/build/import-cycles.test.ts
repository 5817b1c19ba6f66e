/**
 * An architecture rule as a test: no two of Courier's own modules import each other at run time, directly or around
 * a longer loop (src, plugins, config, site, client, deploy). A cycle makes the order modules start in matter, and
 * says two files share one job. Imports of types only (`import type`) are erased before anything runs: not counted.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const folders = ['src', 'plugins', 'config', 'site', 'client', 'deploy']
const importPattern =
  /^\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm

function sources(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.mts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

const files = folders.flatMap(sources)
const graph = new Map<string, string[]>()
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  const targets = [...text.matchAll(importPattern)].map((match) =>
    path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]!),
  )
  graph.set(
    file,
    targets.filter((target) => graph.has(target) || files.includes(target)),
  )
}

t.test('no import cycle among the product modules', async (t) => {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  function visit(file: string) {
    state.set(file, 'open')
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open')
        cycles.push([...stack.slice(stack.indexOf(target)), target].map((one) => path.relative(root, one)).join(' -> '))
      else if (!state.has(target)) visit(target)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (!state.has(file)) visit(file)
  t.ok(files.length > 100, `${files.length} modules read`)
  t.same(cycles, [], 'no cycle')
})

/** The folders of src/ that files of `from` import, imports of types included (`import type` ties folders too). */
const anyImportPattern = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm
function foldersImportedBy(from: string): Set<string> {
  const folders = new Set<string>()
  for (const file of sources(path.join('src', from))) {
    for (const match of readFileSync(file, 'utf8').matchAll(anyImportPattern)) {
      const target = path.relative(path.join(root, 'src'), path.resolve(path.dirname(file), match[1] ?? match[2]!))
      const folder = target.split(path.sep)[0]
      if (folder && folder !== from && !target.startsWith('..') && target.includes(path.sep)) folders.add(folder)
    }
  }
  return folders
}

t.test(
  'render and delivery: render makes the bytes, delivery sends them, and neither folder imports the other back',
  async (t) => {
    t.ok(foldersImportedBy('delivery').has('render'), 'delivery takes what render makes')
    t.notOk(foldersImportedBy('render').has('delivery'), 'render imports nothing of delivery, not even a type')
    t.notOk(foldersImportedBy('compression').has('delivery'), 'nor does compression, which both use')
  },
)
