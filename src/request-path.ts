/** A request URL's path, without its query (`/a/b?x=1` -> `/a/b`): what routes, spans and asset tables are keyed on. */
export function pathOf(url: string): string {
  const queryAt = url.indexOf('?')
  return queryAt === -1 ? url : url.slice(0, queryAt)
}
