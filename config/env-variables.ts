/**
 * The kinds of environment variable Courier reads (config/env.ts): how each turns the text of `process.env` into a
 * value, with a default when unset, and a message naming the variable when the text is not one. Plain code rather
 * than a JSON Schema validator: start-up then compiles no schema (README "Configuration"; docs/performance.md "Lazy
 * route schema compilers").
 */

/** How one variable is read; `undefined` text means unset. Throws an EnvValueError naming the variable. */
export interface EnvVariable<T> {
  read(name: string, text: string | undefined): T
}

/** The values a table of variables reads to, by name. */
export type EnvValues<Table> = { [Name in keyof Table]: Table[Name] extends EnvVariable<infer T> ? T : never }

export class EnvValueError extends Error {
  override name = 'EnvValueError'
}

/** The environment as a whole is not one Courier can start with (config/env.ts, config/tracing.ts). */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

function invalid(name: string, text: string, must: string): EnvValueError {
  return new EnvValueError(`${name} must be ${must} (got ${JSON.stringify(text)})`)
}

const decimalInteger = /^-?\d{1,16}$/

/** A whole number in decimal, from `minimum` to `maximum`. */
export function integer(range: { minimum: number; maximum: number }): EnvVariable<number | undefined>
export function integer(range: { minimum: number; maximum: number; default: number }): EnvVariable<number>
export function integer(range: {
  minimum: number
  maximum: number
  default?: number
}): EnvVariable<number | undefined> {
  return {
    read(name, text) {
      if (text === undefined) return range.default
      const value = Number(text)
      if (!decimalInteger.test(text) || value < range.minimum || value > range.maximum) {
        throw invalid(name, text, `an integer from ${range.minimum} to ${range.maximum}`)
      }
      return value
    },
  }
}

interface TextRule {
  /** What the text must match, said in the message when it does not (e.g. "an http(s) origin"). */
  pattern?: { test: RegExp; says: string }
  /** The text may hold a secret (a URL's password): a message names the rule, never the value. */
  holdsSecret?: boolean
}

/** Text that is not empty, matching a pattern when one is given. */
export function text(rule: TextRule): EnvVariable<string | undefined>
export function text(rule: TextRule & { default: string }): EnvVariable<string>
export function text(rule: TextRule & { default?: string }): EnvVariable<string | undefined> {
  return {
    read(name, value) {
      if (value === undefined) return rule.default
      if (value === '') throw invalid(name, value, 'set to something, or unset')
      if (rule.pattern && !rule.pattern.test.test(value)) {
        if (rule.holdsSecret) throw new EnvValueError(`${name} must be ${rule.pattern.says} (the value is not shown)`)
        throw invalid(name, value, rule.pattern.says)
      }
      return value
    },
  }
}

/** What a secret must be: its characters, its shortest length, how many different characters at least. */
interface SecretRule {
  minLength: number
  minDistinct: number
}

/**
 * Printable ASCII without the space: what an `Authorization` header carries as it is typed, and compares byte for byte.
 */
const printableAscii = /^[\x21-\x7e]*$/

/**
 * A secret (a bearer token): printable ASCII, long enough and varied enough not to be guessed. The message names the
 * rule and never the value, which would otherwise stand in the process's exit message and its logs.
 */
export function secret(rule: SecretRule): EnvVariable<string | undefined> {
  return {
    read(name, value) {
      if (value === undefined) return undefined
      const must =
        `printable ASCII without spaces, at least ${rule.minLength} characters ` +
        `of which ${rule.minDistinct} different (e.g. \`openssl rand -base64 32\`)`
      const distinct = new Set(value).size
      if (!printableAscii.test(value) || value.length < rule.minLength || distinct < rule.minDistinct) {
        const what = printableAscii.test(value)
          ? `${value.length} characters, ${distinct} different`
          : 'characters outside printable ASCII'
        throw new EnvValueError(`${name} must be ${must} (got ${what}; the value is not shown)`)
      }
      return value
    },
  }
}

/** One of a fixed set of words; with `ignoreCase`, in any case (read as the word of the set). */
export function oneOf<const Word extends string>(
  words: readonly Word[],
  fallback: Word,
  options?: WordRule,
): EnvVariable<Word>
export function oneOf<const Word extends string>(
  words: readonly Word[],
  fallback?: undefined,
  options?: WordRule,
): EnvVariable<Word | undefined>
export function oneOf<const Word extends string>(
  words: readonly Word[],
  fallback?: Word,
  options: WordRule = {},
): EnvVariable<Word | undefined> {
  return {
    read(name, value) {
      if (value === undefined) return fallback
      const asked = options.ignoreCase ? value.toLowerCase() : value
      const word = words.find((entry) => entry === asked)
      if (word === undefined) throw invalid(name, value, `one of ${words.join(', ')}`)
      return word
    },
  }
}

interface WordRule {
  ignoreCase?: boolean
}

/** An absolute http: or https: URL. */
export function httpUrl(): EnvVariable<URL | undefined> {
  return {
    read(name, value) {
      if (value === undefined) return undefined
      const url = URL.canParse(value) ? new URL(value) : undefined
      if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw invalid(name, value, 'an http(s) URL')
      return url
    },
  }
}

const decimalNumber = /^\d*\.?\d+(?:e-?\d+)?$/i

/** A non-negative decimal number (`0.25`, `.5`, `1e-3`) from `minimum` to `maximum`. */
export function decimal(range: { minimum: number; maximum: number; default: number }): EnvVariable<number> {
  return {
    read(name, text) {
      if (text === undefined) return range.default
      const value = Number(text)
      if (!decimalNumber.test(text) || !(value >= range.minimum && value <= range.maximum)) {
        throw invalid(name, text, `a number from ${range.minimum} to ${range.maximum}`)
      }
      return value
    },
  }
}

/**
 * The OpenTelemetry rule for its OTEL_* variables: surrounding spaces are dropped, and an empty value is unset
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/#parsing-empty-value).
 */
export function blankIsUnset<T>(variable: EnvVariable<T>): EnvVariable<T> {
  return {
    read(name, text) {
      const trimmed = text?.trim()
      return variable.read(name, trimmed === '' ? undefined : trimmed)
    },
  }
}

/** `true` or `false`. */
export function flag(fallback: boolean): EnvVariable<boolean> {
  return {
    read(name, value) {
      if (value === undefined) return fallback
      if (value === 'true') return true
      if (value === 'false') return false
      throw invalid(name, value, 'true or false')
    },
  }
}

/** Reads every variable of `table` from `env`; the first bad one throws its EnvValueError. */
export function readEnv<Table extends Record<string, EnvVariable<unknown>>>(
  table: Table,
  env: Readonly<Record<string, string | undefined>>,
): EnvValues<Table> {
  const values: Record<string, unknown> = {}
  for (const [name, variable] of Object.entries(table)) values[name] = variable.read(name, env[name])
  return values as EnvValues<Table>
}
