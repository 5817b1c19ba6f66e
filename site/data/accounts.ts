/** The example's accounts: a name and a password, hashed with scrypt (off the event loop) and a salt of its own. */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { statement } from './site-database.ts'

const keyLength = 32

function hashOf(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** Makes the account; false when the name is taken. */
export async function createAccount(name: string, password: string): Promise<boolean> {
  const salt = randomBytes(16)
  const hash = await hashOf(password, salt)
  const insert = statement(
    'INSERT INTO accounts (name, salt, hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
  )
  return insert.run(name, salt, hash, Date.now()).changes === 1
}

/** Whether `password` is the account's; a name with no account costs the same hash, so timing tells nothing. */
export async function passwordMatches(name: string, password: string): Promise<boolean> {
  const row = statement('SELECT salt, hash FROM accounts WHERE name = ?').get(name)
  const salt = row ? Buffer.from(row.salt as Uint8Array) : randomBytes(16)
  const hash = await hashOf(password, salt)
  return row !== undefined && timingSafeEqual(hash, Buffer.from(row.hash as Uint8Array))
}
