/**
 * Node's `node:http` module object, as `require` gives it. An ES `import` of a built-in module builds its namespace
 * from every export, reading each one, and `node:http`'s `WebSocket`, `CloseEvent` and `MessageEvent` are getters that
 * load Node's copy of undici (and `http2` with it) for APIs Courier never calls: about 10 % of a start's CPU
 * (docs/performance.md "Node's HTTP module without its namespace"). `process.getBuiltinModule` returns the module
 * itself and reads only what the code names.
 */
export const nodeHttp = process.getBuiltinModule('node:http')
