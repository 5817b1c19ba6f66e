/** The server's digest an error carries (React passes it on for a boundary that failed on the server), if any. */
export function digestOf(error: unknown): string | undefined {
  const digest = typeof error === 'object' && error !== null ? (error as { digest?: unknown }).digest : undefined
  return typeof digest === 'string' ? digest : undefined
}
