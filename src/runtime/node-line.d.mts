export declare const minimumNode: Readonly<{ major: number; minor: number; patch: number }>
export declare const unsupportedNodeExitCode: number
export declare function minimumNodeVersion(): string
export declare function isSupportedNode(version: string): boolean
export declare function unsupportedNodeLine(runtime: {
  version: string
  projectRoot: string
  underNpm: boolean
}): string | undefined
export declare function refuseUnsupportedNode(projectRoot?: string): void
