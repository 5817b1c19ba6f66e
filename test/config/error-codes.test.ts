import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { errorCode, errors } from '../../src/errors.ts'

t.test('docs/errors.md lists every coded error with its status, and no code the table lacks', async (t) => {
  const page = readFileSync(path.join(projectRoot, 'docs', 'errors.md'), 'utf8')
  const table = page.slice(page.indexOf('## Error codes'))
  t.ok(table.length < page.length, 'docs/errors.md has an "Error codes" section')
  const listed = new Set(
    [...table.matchAll(/^\| `(COURIER_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((row) => `${row[1]} ${row[2]}`),
  )
  const coded = Object.values(errors).map((ErrorType) => `${errorCode(ErrorType)} ${new ErrorType().statusCode}`)
  for (const code of coded) t.ok(listed.has(code), `docs/errors.md lists ${code}`)
  t.equal(listed.size, coded.length, 'and nothing else')
})
