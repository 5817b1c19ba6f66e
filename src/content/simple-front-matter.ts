/** One `field: value` line of the subset: a plain name, then a double-quoted string or a whole number. */
const simpleLine = /^([A-Za-z][A-Za-z0-9_-]*): (?:("(?:[^"\\\x00-\x1f\x7f]|\\["\\/nt])*")|(-?[1-9][0-9]{0,14}|0))$/

/** Names YAML reads as something other than their text (`null: x` is a key of null, not "null"). */
const specialNames = /^(?:null|true|false)$/i

/**
 * Front matter in the form every content file of the site uses (`title: "..."`, `order: 3`, one field per line),
 * read without the YAML parser; undefined for anything else, which the caller gives to the YAML parser. For the text it
 * accepts it gives exactly what YAML gives (test/content/simple-front-matter.test.ts compares them): a double-quoted
 * string with JSON's escapes only, a whole number of at most 15 digits, no name twice (YAML refuses that). The YAML
 * parser's first use costs a start's first page about 10 ms, for a list of guides (docs/runtime.md "Cold start").
 */
export function readSimpleFrontMatter(yamlText: string): Record<string, unknown> | undefined {
  if (yamlText === '') return undefined
  const fields: Record<string, unknown> = {}
  for (const line of yamlText.split('\n')) {
    const match = simpleLine.exec(line)
    if (!match) return undefined
    const [, name, quoted, number] = match as unknown as [string, string, string | undefined, string | undefined]
    if (specialNames.test(name) || Object.hasOwn(fields, name)) return undefined
    fields[name] = quoted === undefined ? Number(number) : (JSON.parse(quoted) as string)
  }
  return fields
}
