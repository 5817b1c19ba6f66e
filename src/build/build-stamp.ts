/** What a compiled server was built from (src/build/server-build.ts writes it into the bundle). */
export interface ServerBuildStamp {
  /** The deployment id of the client build made in the same run: the server starts only beside that build. */
  readonly deploymentId: string
  /** The hash of the sources the build was made from (src/build/source-hash.mjs). */
  readonly sourceHash: string
}

/**
 * The running server's stamp: none when Courier runs from its TypeScript sources (`npm run dev`, the tests). The
 * server build replaces this module with the build's values, so nothing is read at start-up to learn them.
 */
export const serverBuildStamp: ServerBuildStamp | undefined = undefined
