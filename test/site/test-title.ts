/** A test page's title: its own words, never the example site's name. */
export function testTitled(title: string): string {
  return `${title} · Courier test`
}
