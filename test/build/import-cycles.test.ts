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
const importPattern = /^\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm

function sources(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.mts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

const files = folders.flatMap(sources)
const graph = new Map<string, string[]>()
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  const targets = [...text.matchAll(importPattern)].map((match) => path.resolve(path.dirname(file), match[1] ?? match[2] ?? match[3]!))
  graph.set(file, targets.filter((target) => graph.has(target) || files.includes(target)))
}

t.test('no import cycle among the product modules', async (t) => {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  function visit(file: string) {
    state.set(file, 'open')
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].map((one) => path.relative(root, one)).join(' -> '))
      else if (!state.has(target)) visit(target)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (!state.has(file)) visit(file)
  t.ok(files.length > 100, `${files.length} modules read`)
  t.same(cycles, [], 'no cycle')
})
