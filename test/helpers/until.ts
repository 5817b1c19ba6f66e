/** Polls `probe` until it gives a value (spans leave in batches, log lines arrive when written); fails after `waitMs`. */
export async function until<T>(what: string, probe: () => T | undefined, waitMs = 60_000): Promise<T> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const found = probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`waited ${waitMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
