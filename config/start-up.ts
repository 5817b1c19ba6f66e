/**
 * How the compiled server starts (src/runtime/start-up.ts, docs/runtime.md "Cold start"). Each choice was measured
 * with start-up CPU profiles of `npm start`'s command, spawn to the first 200 of `/`.
 */
export const startUp = Object.freeze({
  /**
   * V8's compile cache (Node's `module.enableCompileCache`) goes in this folder beside the compiled server
   * (`<dist>/node/compile-cache/`): it survives restarts, and a new build, which replaces `<dist>/node/` whole, never
   * starts with the cache of other sources. Node checks each entry against its file's content besides, and keeps
   * one subfolder per Node release and V8 flags.
   */
  compileCacheFolder: 'compile-cache',
  /**
   * Source maps: on for Courier's own code, so stack traces in the logs name the `.ts` files and lines; off for
   * node_modules (no package Courier loads ships one worth reading) and for code made by `eval`/`new Function`
   * (Ajv's and fast-json-stringify's compiled schemas). Switched on by the entry rather than by
   * `--enable-source-maps`: with the flag, `util.getCallSites()` maps every call site too, and pino asks for them each
   * time a logger is made, which parsed the bundle's whole map on every start.
   */
  sourceMaps: Object.freeze({ nodeModules: false, generatedCode: false }),
  /**
   * Node modules the compiled server loads on first use instead of when a bundled package requires them: Fastify's
   * server module requires `https` and `http2` at its top for the options that use them (TLS, HTTP/2), and Courier
   * listens on plain HTTP. Loading them (and `tls` with them) cost 15-25 ms of a start and about 7 MiB of resident
   * memory, the TLS and HTTP/2 stacks and the parts of Node's binary they run; src/build/server-build.ts
   * `lazyBuiltins` says how. A module added here must be one whose exports are read as properties, never
   * destructured at load (that would load it at once, which is correct but saves nothing). `v8` (and its heap and
   * CPU profiler modules) is read by the status page only. Not `dns`: Fastify looks the listening host up once it
   * listens, whatever the host.
   */
  lazyBuiltins: Object.freeze(['node:https', 'node:http2', 'node:v8']),
})
