/**
 * JSON that is safe inside an HTML `<script>` element: `<`, `>` and `&` are escaped so data holding `</script>` or
 * `<!--` cannot end the element, and U+2028/U+2029 are escaped so the text also stays a valid JavaScript literal. The
 * server writes the hydration state with it; the holes of a partly prerendered page write their request-time data with
 * it, on the server and in the browser alike (client/components/request-time.tsx).
 */
const unsafe = /[<>&\u2028\u2029]/g
const escapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

export function serializeForScript(value: unknown): string {
  return JSON.stringify(value).replace(unsafe, (character) => escapes[character]!)
}
