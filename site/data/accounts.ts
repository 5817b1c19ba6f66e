/** The example's accounts: a name and a password, hashed with scrypt (off the event loop) and a salt of its own. */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { siteStore } from './site-store.ts'

const keyLength = 32

function hashOf(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** Makes the account; false when the name is taken. */
export async function createAccount(name: string, password: string): Promise<boolean> {
  const salt = randomBytes(16)
  return siteStore().createAccount(name, { salt, hash: await hashOf(password, salt) })
}

/** Whether `password` is the account's; a name with no account costs the same hash, so timing tells nothing. */
export async function passwordMatches(name: string, password: string): Promise<boolean> {
  const account = await siteStore().account(name)
  const hash = await hashOf(password, account?.salt ?? randomBytes(16))
  return account !== undefined && timingSafeEqual(hash, account.hash)
}
