// `node src/runtime/check-node.mjs`, first in every npm script that builds, tests, benches or type-checks: refuses an
// older Node (src/runtime/node-line.mjs), else prints the one it runs on, so that every suite's log says which.
import { refuseUnsupportedNode } from './node-line.mjs'

refuseUnsupportedNode()
process.stdout.write(`courier: Node.js ${process.version} (${process.execPath})\n`)
