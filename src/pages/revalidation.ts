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
  /** This instance's revalidation or another's, alike: marks the pages named, each regenerated when next asked for
   * (requests for it wait for that one regeneration). */
  revalidate(revalidation: Revalidation): unknown
}
