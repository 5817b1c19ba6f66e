import { readFileSync } from 'node:fs'
import { registerHooks } from 'node:module'
import { fileURLToPath } from 'node:url'

const registered = Symbol.for('courier.tsx-hook')

/**
 * Lets Node import the page modules (`.tsx`) when Courier runs from its TypeScript sources (`npm run dev`, the suites,
 * the build reading the pages' declarations): Node strips the types of `.ts` itself, but JSX needs a transform, which
 * Rolldown's (Vite's own) does here, in-thread. The server build bundles the pages instead, so a production start
 * never loads this. Registered once per process (the mark is on `globalThis`: hooks are the process's, not a module's).
 */
export async function registerTsxHook(): Promise<void> {
  const marks = globalThis as { [registered]?: true }
  if (marks[registered]) return
  marks[registered] = true
  const { transformSync } = await import('rolldown/utils')
  registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith('file:') || !url.endsWith('.tsx')) return nextLoad(url, context)
      const file = fileURLToPath(url)
      const { code, errors } = transformSync(file, readFileSync(file, 'utf8'), {
        jsx: { runtime: 'automatic' },
        sourcemap: false,
      })
      if (errors.length > 0) throw new SyntaxError(`${file}: ${errors.map((error) => error.message).join('; ')}`)
      return { format: 'module', source: code, shortCircuit: true }
    },
  })
}
