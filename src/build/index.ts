/**
 * What the rest of the repository may use of the build (docs/production-build.md): `deploy/` takes from here, never
 * from the build's own files. The sources a build reads (the build check and a release copy them), the dictionary
 * deltas of chunks against older ones, and `npm start`'s command as package.json gives it.
 */
export { listBuildSources } from './source-hash.mjs'
export { dictionaryFilesIn, writeDeltas } from './dictionary-deltas.ts'
export { readStartCommand } from './start-command.ts'
