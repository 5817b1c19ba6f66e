/**
 * `node bench/start-up-profile.ts <file.cpuprofile> [...]`: where a Courier start's CPU time went, from a profile of
 * `npm start`'s command (`--cpu-prof`, e.g. COLD_START_PROFILE of bench/cold-start.ts), spawn to the first 200 of `/`.
 * Two views, summed over the profiles given and divided by their number:
 * - phases, by the first sample of each in the timeline: module loading until `loadConfig` runs; the configuration
 *   until `buildApp`; Fastify registering the plugins and listening until the first request reaches the HTTP parser
 *   (`parserOnIncoming`); the first request, its render included, to the end of the profile;
 * - kinds of work, by the function a sample is in: V8/Node compiling modules, Node's built-in modules, source maps,
 *   the garbage collector, packages, Courier's bundle, idle.
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const phaseMarks = [
  ['module loading', ''],
  ['configuration', 'loadConfig'],
  ['plugins and listen', 'buildApp'],
  ['first request and render', 'parserOnIncoming'],
] as const

function kindOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame
  if (functionName === '(garbage collector)') return 'garbage collector'
  if (functionName === '(idle)' || functionName === '(program)') return 'idle / program'
  if (url.includes('internal/source_map')) return 'source maps'
  if (
    /compileSourceTextModule|compileFunction|wrapSafe|ModuleWrap|compileForInternalLoader|compileForPublicLoader/.test(
      functionName,
    )
  )
    return 'compiling (modules and built-ins)'
  if (url.startsWith('node:internal/modules') || url.startsWith('node:internal/bootstrap')) return 'module loader'
  if (url.startsWith('node:') || url === '') return "Node's built-in modules and natives"
  if (url.includes('/node_modules/')) return `package ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]}`
  if (url.includes('/dist/node/')) return "Courier's bundle (dist/node)"
  if (url.includes('/dist/server/')) return 'SSR entry (dist/server)'
  return 'other'
}

const files = process.argv.slice(2)
if (files.length === 0) {
  process.stderr.write('usage: node bench/start-up-profile.ts <file.cpuprofile> [...]\n')
  process.exit(64)
}
const phases = new Map<string, number>()
const kinds = new Map<string, number>()
let total = 0
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const stackNames = (id: number) => {
    const names = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      names.add(byId.get(at)!.callFrame.functionName)
    return names
  }
  let phase = 0
  profile.samples.forEach((id, index) => {
    const delta = (profile.timeDeltas[index] ?? 0) / 1000
    const names = stackNames(id)
    // A phase too short to be sampled (the configuration often is) is skipped, not waited for.
    for (let later = phase + 1; later < phaseMarks.length; later += 1)
      if (names.has(phaseMarks[later]![1])) phase = later
    const name = phaseMarks[phase]![0]
    phases.set(name, (phases.get(name) ?? 0) + delta)
    const kind = kindOf(byId.get(id)!)
    kinds.set(kind, (kinds.get(kind) ?? 0) + delta)
    total += delta
  })
}
const ms = (value: number) => (value / files.length).toFixed(0)
const share = (value: number) => `${((value / total) * 100).toFixed(0)} %`
const lines = [
  `${files.length} profile(s), ${ms(total)} ms each on average`,
  '',
  '| phase | ms | share |',
  '|---|---|---|',
]
for (const [name] of phaseMarks)
  lines.push(`| ${name} | ${ms(phases.get(name) ?? 0)} | ${share(phases.get(name) ?? 0)} |`)
lines.push('', '| kind of work | ms | share |', '|---|---|---|')
for (const [name, value] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 14))
  lines.push(`| ${name} | ${ms(value)} | ${share(value)} |`)
process.stdout.write(lines.join('\n') + '\n')
