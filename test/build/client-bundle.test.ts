import t from 'tap'
import { testPages } from '../helpers/page-table.ts'
import { headOfInstance, pageInstances } from '../helpers/site-pages.ts'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'acorn'
import { full } from 'acorn-walk'
import { loadConfig, projectRoot } from '../../config/env.ts'
import { listPageFiles, pageFolders } from '../../src/pages/page-files.ts'
import { textOf } from '../../src/content/markdown.ts'
import { faq, guides } from '../helpers/content.ts'

/** The build under test: `npm test` builds first. */
const distDir = loadConfig({}).distDir
const clientDir = path.join(distDir, 'client')
const deploymentId = (
  JSON.parse(readFileSync(path.join(distDir, 'deployment.json'), 'utf8')) as { deploymentId: string }
).deploymentId

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
}

const clientFiles = filesUnder(clientDir)
const scripts = clientFiles.filter((file) => file.endsWith('.js'))
const texts = clientFiles.filter((file) => /\.(js|css|html|json)$/.test(file))

t.test('server-only code and content never reach the client build', async (t) => {
  const bundle = texts.map((file) => readFileSync(file, 'utf8')).join('\n')
  const guideParagraph = textOf(guides[3]!.sections[0]!.content).slice(0, 60)
  const faqAnswer = textOf(faq.entries[2]!.answer).slice(0, 60)
  t.notMatch(bundle, guideParagraph, 'guide text comes as data only')
  t.notMatch(bundle, faqAnswer, 'FAQ text comes as data only')
  t.notMatch(bundle, 'memoryUsage', "the status page's loader stays on the server")
  t.notMatch(bundle, 'staticParams', 'the server half of the page table stays on the server')
  t.notMatch(bundle, 'micromark', 'the Markdown parser stays on the server: pages receive their content parsed')
})

/** The string literals of a server half long enough to be its own (a message, a query), as written in its file. */
function ownStrings(file: string): string[] {
  const text = readFileSync(path.join(projectRoot, file), 'utf8')
  return [...text.matchAll(/'([^'\\\n]{16,})'/g)]
    .map((match) => match[1]!)
    .filter((literal) => !literal.startsWith('.'))
}

t.test("no page's server half reaches the client, in either build", async (t) => {
  const builds = [
    { folders: pageFolders(false), client: clientDir },
    { folders: pageFolders(true), client: path.join(path.dirname(distDir), 'dist-test', 'client') },
  ]
  let checked = 0
  for (const build of builds) {
    const bundle = filesUnder(build.client)
      .filter((file) => /\.(js|html|json)$/.test(file))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n')
    t.notMatch(bundle, /["'`]node:\w+/, `${build.client}: no Node built-in is imported`)
    for (const { serverFile } of listPageFiles(projectRoot, build.folders)) {
      for (const literal of serverFile ? ownStrings(serverFile) : []) {
        checked++
        t.notOk(bundle.includes(literal), `${serverFile}'s ${JSON.stringify(literal)} is not in ${build.client}`)
      }
    }
  }
  t.ok(checked > 0, `${checked} strings of server halves looked for`)
})

t.test("no page's declaration reaches the client: heads come with the page data", async (t) => {
  const bundle = texts.map((file) => readFileSync(file, 'utf8')).join('\n')
  let checked = 0
  for (const instance of await pageInstances({ firstOnly: true })) {
    const { title, description } = await headOfInstance(instance)
    for (const words of [title, description]) {
      if (words === undefined || words.length < 12) continue
      checked++
      t.notOk(
        bundle.includes(words),
        `${instance.page.id}'s head (${JSON.stringify(words)}) is not in the client build`,
      )
    }
  }
  t.ok(checked > 0, `${checked} heads' words looked for`)
})

t.test('the production build holds no test page: no chunk, no route, no text of one', async (t) => {
  const bundle = texts.map((file) => readFileSync(file, 'utf8')).join('\n')
  for (const page of testPages) {
    t.notMatch(bundle, page.path, `${page.path} is not in the client`)
    t.notOk(
      texts.some((file) => path.basename(file).startsWith(`${page.id}-`)),
      `${page.id} has no chunk`,
    )
  }
  const manifest = readFileSync(path.join(clientDir, '.vite', 'manifest.json'), 'utf8')
  t.notMatch(manifest, 'test/site', 'nothing of test/site/ went into the build')
  const server = readdirSync(path.join(distDir, 'server'), { recursive: true }).map(String)
  t.notOk(
    server.some((file) => /(^|\/)test-/.test(file)),
    'the SSR build has no test page either',
  )
})

t.test("the production build's compiled server holds no test page; the test build's holds them all", async (t) => {
  const compiled = (build: string) =>
    filesUnder(path.join(build, 'node'))
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n')
  const production = compiled(distDir)
  const test = compiled(path.join(path.dirname(distDir), 'dist-test'))
  for (const page of testPages) {
    t.notMatch(production, page.path, `${page.path} is not in dist/node/`)
    // As a string literal of the minified code: any of the three quotes.
    t.ok(
      [`"${page.path}"`, `'${page.path}'`, `\`${page.path}\``].some((literal) => test.includes(literal)),
      `${page.path} is in dist-test/node/`,
    )
  }
})

/**
 * Syntax newer than every target browser parses (chrome 64, edge 79, firefox 67, opera 51, safari 12). acorn parses
 * at ES2020 (import() and import.meta are fine in all of them); these nodes are what the oldest ones reject.
 */
function unsupportedSyntax(code: string): string[] {
  const found: string[] = []
  const tree = parse(code, { ecmaVersion: 2020, sourceType: 'module' })
  full(tree, (node) => {
    const anyNode = node as unknown as Record<string, unknown>
    if (node.type === 'ChainExpression') found.push('optional chaining (?.)')
    if (node.type === 'LogicalExpression' && anyNode.operator === '??') found.push('nullish coalescing (??)')
    if (node.type === 'CatchClause' && anyNode.param === null) found.push('optional catch binding (chrome 66)')
    if (node.type === 'Literal' && typeof anyNode.bigint === 'string') found.push('BigInt literal')
    if (node.type === 'Literal' && anyNode.regex) {
      const { pattern, flags } = anyNode.regex as { pattern: string; flags: string }
      if (/\(\?<[=!]/.test(pattern)) found.push('regexp lookbehind (firefox 78, safari 16.4)')
      if (/\(\?<[A-Za-z_$]/.test(pattern)) found.push('regexp named group (firefox 78)')
      if (/[dv]/.test(flags)) found.push(`regexp flag ${flags}`)
      if (/\\p\{/.test(pattern)) found.push('regexp unicode property escape (firefox 78)')
    }
  })
  return found
}

t.test('every emitted chunk parses in the target browsers', async (t) => {
  t.ok(scripts.length > 0, 'the build has scripts')
  for (const file of scripts) {
    const code = readFileSync(file, 'utf8')
    let found: string[]
    try {
      found = unsupportedSyntax(code)
    } catch (error) {
      found = [`does not parse as ES2020: ${(error as Error).message}`]
    }
    t.same([...new Set(found)], [], path.relative(clientDir, file))
  }
})

t.test('the syntax check itself catches newer syntax', async (t) => {
  t.same(unsupportedSyntax('a?.b'), ['optional chaining (?.)'])
  t.same(unsupportedSyntax('a ?? b'), ['nullish coalescing (??)'])
  t.same(unsupportedSyntax('try {} catch {}'), ['optional catch binding (chrome 66)'])
  t.same(unsupportedSyntax('/(?<=a)b/'), ['regexp lookbehind (firefox 78, safari 16.4)'])
  t.throws(() => unsupportedSyntax('class A { #x = 1 }'), 'private fields do not even parse at ES2020')
})

t.test('every reference to an emitted file carries ?dpl=<id>', async (t) => {
  const emitted = clientFiles
    .filter((file) => !file.includes(`${path.sep}.vite${path.sep}`))
    .map((file) => path.basename(file))
    .filter((name) => name !== 'index.html')
  let references = 0
  for (const file of texts.filter((candidate) => !candidate.endsWith('.json'))) {
    const code = readFileSync(file, 'utf8')
    for (const name of emitted) {
      let at = code.indexOf(name)
      while (at !== -1) {
        references++
        const after = code.slice(at + name.length, at + name.length + 5 + deploymentId.length)
        t.equal(after, `?dpl=${deploymentId}`, `${name} in ${path.basename(file)}`)
        at = code.indexOf(name, at + name.length)
      }
    }
  }
  t.ok(references > 10, `${references} references checked`)
})

t.test('the deployment id is a safe token', async (t) => {
  t.match(deploymentId, /^[A-Za-z0-9._-]{1,64}$/)
})
