/** The API and everything under /_next (data, assets, images) fail in JSON; every other path gets an HTML page. */
export function answersInJson(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/_next/')
}
