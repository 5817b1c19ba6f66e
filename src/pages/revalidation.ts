/**
 * The revalidation vocabulary: what a revalidation names and what the kept pages do with it. Pages own it; the
 * fleet's transports (src/shared-state/) carry it.
 */
/** What a revalidation names (POST /api/revalidate's body). */
export interface RevalidationMessage {
  paths: string[]
  tags: string[]
}

/** What an instance applies: a revalidation, or every kept page when it cannot know what it missed. */
export type Revalidation = RevalidationMessage | 'everything'

/**
 * The kept pages a revalidation reaches (page-versions.ts): the revalidate route, the Redis channel and
 * the workers' messages all apply revalidations to it.
 */
export interface RevalidatedPages {
  /** Another instance's revalidation: requests for a named page wait for its one regeneration. */
  revalidate(revalidation: Revalidation): unknown
  /** One this instance takes: resolves once the pages it keeps are regenerated (kept versions served meanwhile). */
  regenerateNow(message: RevalidationMessage): Promise<unknown>
}
