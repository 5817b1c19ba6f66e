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
   * V8 flags for the server at work (docs/performance.md says what each does), set once its modules are loaded and
   * before it listens, not on the command line: either there changes V8's flag hash, and Node then refuses the code
   * cache its own modules ship with and compiles each built-in module from its source at every start (about 55 ms of
   * a start's CPU, spawn to the first 200 of `/`). Only flags V8 reads afresh at each use, and whose every use is a
   * guard, may be set this late (`--no-regexp-tier-up` set after a first match crashed Node 26 in `RegExp#test`).
   * `--max-semi-space-size` stays on the command line: it sizes the heap as it is made, and is not in the hash.
   */
  flagsOnceLoaded: Object.freeze(['--heap-growing-percent=25', '--no-allocation-site-pretenuring']),
})
