import { executionAsyncResource } from 'node:async_hooks'

/**
 * Keeps one of Node's `process.nextTick` records alive for the life of the process, so that `nextTick` stays fast
 * (docs/performance.md "The nextTick record" gives the measurements).
 *
 * Node builds a record per `nextTick` call with an object literal (`{ [async_id_symbol], [trigger_async_id_symbol],
 * callback, args }`), and every response makes several of them (stream ends, socket writes). V8 keeps the hidden
 * classes of that literal only while an object has them: a full GC at a moment when no record is alive (start-up,
 * loading modules, the tracing SDK starting) frees them, and the next record gets new ones. The literal's inline caches
 * then see a new class each time; after four they turn megamorphic for good, and every record after that is built
 * through V8's runtime. On a server that started that way, `/` cost about 2.5 µs more CPU per response (10 % of it),
 * in a share of starts that grew with what start-up loaded: every start with tracing on, seen in CPU profiles as
 * `nextTick` taking ten times its usual time. One record held from the first tick keeps the classes alive.
 *
 * Imported by the process's entry (src/server.ts) before the rest of the server is loaded.
 */
export const nextTickRecordKey = Symbol.for('courier.nextTickRecord')

process.nextTick(function keepNextTickRecord() {
  // The resource of a nextTick callback is its own record. Held by `process`, not by a variable of this module: the
  // server bundle drops a variable nothing reads (src/build/server-build.ts), and the record with it.
  // A second copy of this module in one process (the sources beside the build, in a test) keeps the first record.
  if (!Object.hasOwn(process, nextTickRecordKey)) {
    Object.defineProperty(process, nextTickRecordKey, { value: executionAsyncResource() })
  }
})
