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
})
