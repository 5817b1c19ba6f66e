/**
 * Where the example keeps accounts and feedback: SQLite in the data folder (one host; site-database.ts), or, with
 * SITE_REDIS_URL, a Redis every instance of a fleet on several hosts shares. That Redis must keep what it is given:
 * persistent and `noeviction`, like the sessions' own (docs/sessions.md); the shared-state cache Redis is not one.
 */
import type { Redis } from 'ioredis'
import { statement } from './site-database.ts'

export interface StoredAccount {
  salt: Buffer
  hash: Buffer
}

export interface Feedback {
  id: number
  guide: string
  body: string
  createdAt: string
}

/** The most feedback an account page shows (the newest first). */
export const feedbackShown = 50

export interface SiteStore {
  /** Makes the account; false when the name is taken. */
  createAccount(name: string, account: StoredAccount): Promise<boolean>
  account(name: string): Promise<StoredAccount | undefined>
  leaveFeedback(author: string, guide: string, body: string): Promise<void>
  /** The author's newest feedback, `feedbackShown` at most. */
  feedbackOf(author: string): Promise<Feedback[]>
}

const sqliteStore: SiteStore = {
  async createAccount(name, { salt, hash }) {
    const insert = statement(
      'INSERT INTO accounts (name, salt, hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
    )
    return insert.run(name, salt, hash, Date.now()).changes === 1
  },
  async account(name) {
    const row = statement('SELECT salt, hash FROM accounts WHERE name = ?').get(name)
    return row && { salt: Buffer.from(row.salt as Uint8Array), hash: Buffer.from(row.hash as Uint8Array) }
  },
  async leaveFeedback(author, guide, body) {
    statement('INSERT INTO feedback (author, guide, body, created_at) VALUES (?, ?, ?, ?)').run(
      author,
      guide,
      body,
      Date.now(),
    )
  },
  async feedbackOf(author) {
    const select = statement(
      'SELECT id, guide, body, created_at FROM feedback WHERE author = ? ORDER BY id DESC LIMIT ?',
    )
    return select.all(author, feedbackShown).map((row) => ({
      id: Number(row.id),
      guide: String(row.guide),
      body: String(row.body),
      createdAt: new Date(Number(row.created_at)).toISOString(),
    }))
  },
}

/**
 * Accounts as `site:account:<name>` (made with NX, so a name is taken once), feedback as a capped list per author.
 * `connected`: the client, loaded on first use (ioredis stays off the start of a server that does not use it).
 */
function redisStore(connected: Promise<Redis>): SiteStore {
  return {
    async createAccount(name, { salt, hash }) {
      const value = JSON.stringify({ salt: salt.toString('base64'), hash: hash.toString('base64'), at: Date.now() })
      return (await (await connected).set(`site:account:${name}`, value, 'NX')) === 'OK'
    },
    async account(name) {
      const value = await (await connected).get(`site:account:${name}`)
      if (value === null) return undefined
      const { salt, hash } = JSON.parse(value) as { salt: string; hash: string }
      return { salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') }
    },
    async leaveFeedback(author, guide, body) {
      const redis = await connected
      const id = await redis.incr('site:feedback:seq')
      const key = `site:feedback:${author}`
      await redis
        .multi()
        .lpush(key, JSON.stringify({ id, guide, body, createdAt: new Date().toISOString() }))
        .ltrim(key, 0, feedbackShown - 1)
        .exec()
    },
    async feedbackOf(author) {
      const items = await (await connected).lrange(`site:feedback:${author}`, 0, feedbackShown - 1)
      return items.map((item) => JSON.parse(item) as Feedback)
    },
  }
}

const redisStores = new Map<string, { store: SiteStore; redis: Promise<Redis> }>()

/** The store SITE_REDIS_URL names, else the data folder's SQLite. */
export function siteStore(env: NodeJS.ProcessEnv = process.env): SiteStore {
  const url = env.SITE_REDIS_URL
  if (!url) return sqliteStore
  let opened = redisStores.get(url)
  if (!opened) {
    const redis = import('ioredis').then(({ Redis }) => new Redis(url, { maxRetriesPerRequest: 1 }))
    redisStores.set(url, (opened = { store: redisStore(redis), redis }))
  }
  return opened.store
}

/** Closes the Redis connections the stores opened (the server's close: site/routes/account.ts). */
export async function closeSiteStores(): Promise<void> {
  const opened = [...redisStores.values()]
  redisStores.clear()
  await Promise.all(
    opened.map(async (entry) => {
      const redis = await entry.redis
      await redis.quit().catch(() => redis.disconnect())
    }),
  )
}
