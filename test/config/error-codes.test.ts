import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { errorCode, errors } from '../../src/errors.ts'

t.test('README lists every coded error with its status, and no code the table lacks', async (t) => {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8')
  const table = readme.slice(readme.indexOf('## Error codes'))
  t.ok(table.length < readme.length, 'README has an "Error codes" section')
  const listed = new Set([...table.matchAll(/^\| `(COURIER_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((row) => `${row[1]} ${row[2]}`))
  const coded = Object.values(errors).map((ErrorType) => `${errorCode(ErrorType)} ${new ErrorType().statusCode}`)
  for (const code of coded) t.ok(listed.has(code), `README lists ${code}`)
  t.equal(listed.size, coded.length, 'and nothing else')
})
