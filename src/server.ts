// The process's entry, in `npm start` (as dist/node/server.js) and `npm run dev`. It loads nothing of the server
// before it knows the Node running it is one Courier runs on: an older one is refused in one line with its own exit
// code (src/runtime/node-line.mjs), before any dependency could fail on it with a stack trace of its own.
import { refuseUnsupportedNode } from './runtime/node-line.mjs'
import { enableCompileCache, enableSourceMaps } from './runtime/start-up.ts'

refuseUnsupportedNode()
// Both before the server's modules load: they apply to what is loaded from then on (docs/runtime.md "Cold start").
enableSourceMaps()
enableCompileCache(import.meta.url)

// See the module's comment (V8 keeps the classes of nextTick's records only while one is alive): before the rest.
await import('./keep-next-tick-shape.ts')
await import('./main.ts')
