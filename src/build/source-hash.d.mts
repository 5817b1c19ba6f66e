export declare const buildSources: readonly string[]
export declare const notBuildSources: readonly string[]
export declare function listBuildSources(root: string): string[]
export declare const serverManifestName: string
export declare function hashSources(root: string, entries?: readonly string[]): string
