/**
 * The repository's nginx and Courier agree on how large a request body may be (docs/forms.md, "An action"): a body nginx
 * lets through is one Courier reads, and one Courier refuses (413) nginx refuses first, with the same status.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { serverLimits } from '../../config/server.ts'

t.test("nginx's client_max_body_size is Courier's body limit", async (t) => {
  const conf = readFileSync(path.join(projectRoot, 'deploy', 'nginx', 'courier.conf'), 'utf8')
  const sizes = [...conf.matchAll(/^\s*client_max_body_size\s+(\d+)([kKmM]?);/gm)]
  t.ok(sizes.length > 0, 'the config sets one')
  for (const [, amount, unit] of sizes) {
    const bytes = Number(amount) * (/k/i.test(unit!) ? 1024 : /m/i.test(unit!) ? 1024 * 1024 : 1)
    t.equal(bytes, serverLimits.bodyLimitBytes, `client_max_body_size ${amount}${unit} = bodyLimitBytes`)
  }
})
