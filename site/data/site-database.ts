/**
 * The example's own data: accounts and the feedback they leave on guides, in an embedded SQLite database
 * (`node:sqlite`) in the site's data folder (DATA_DIR, outside every release: a deploy keeps it). Instances of one
 * host share the file (write-ahead log, a writer waits up to 2 s for another; `synchronous = NORMAL`, SQLite's advice
 * for it: a power cut may lose the last commits, never the file). Every query is one small indexed
 * statement: SQLite is synchronous and runs on the event loop.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import path from 'node:path'
import { siteDataDir } from '../../src/site-data.ts'

const schema = `
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = NORMAL;
  PRAGMA busy_timeout = 2000;
  CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL REFERENCES accounts(name),
    guide TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS feedback_by_author ON feedback (author, id);
`

/** Each database opened, by the DATA_DIR it was opened for: a query reads the folder's name, nothing more. */
const opened = new Map<string | undefined, DatabaseSync>()
const statements = new WeakMap<DatabaseSync, Map<string, StatementSync>>()

/** The database of the data folder DATA_DIR names, opened (its folder and tables made) on first use. */
export function siteDatabase(): DatabaseSync {
  const dataDir = process.env.DATA_DIR
  let database = opened.get(dataDir)
  if (!database) {
    database = new DatabaseSync(path.join(siteDataDir(), 'site.db'))
    database.exec(schema)
    opened.set(dataDir, database)
  }
  return database
}

/** `sql` prepared once per database: a page's query is then only run. */
export function statement(sql: string): StatementSync {
  const database = siteDatabase()
  let prepared = statements.get(database)
  if (!prepared) statements.set(database, (prepared = new Map()))
  let found = prepared.get(sql)
  if (!found) prepared.set(sql, (found = database.prepare(sql)))
  return found
}
