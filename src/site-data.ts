import { mkdirSync } from 'node:fs'
import { loadConfig } from '../config/env.ts'

/**
 * The folder where the site keeps its own data (DATA_DIR; docs/your-site.md "Data the site writes"), made on first use
 * and readable by this user only. It lies outside the release: `npm start` uses `data/` of the checkout, which no
 * build reads; a deploy gives every release the same folder of its state, so data outlives deploys and pruning.
 */
export function siteDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = loadConfig(env).dataDir
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  return dir
}
