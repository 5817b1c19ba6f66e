import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
/** What Fastify hands a compiler: one schema of one route. */
type RouteSchema = Record<string, unknown>
type Serialize = (data: unknown) => string
/** Fastify's builders: called once per set of shared schemas and options, they return the compiler of every route. */
type BuildValidator = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Validate
type BuildSerializer = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Serialize

/** A validator as Fastify calls it: Ajv's function, with its `errors` and `schemaEnv` read after the call. */
interface Validate {
  (data: unknown, context?: unknown): unknown
  errors?: unknown
  schemaEnv?: unknown
}

export interface LazySchemaCompilers {
  /** For `Fastify({ schemaController: { compilersFactory } })`. */
  compilersFactory: CompilersFactory
  /** Compiles what is still uncompiled, one schema per turn of the event loop, so requests go between them. */
  compileRemaining(): Promise<void>
  /** How many schemas of registered routes are not compiled yet. */
  uncompiled(): number
}

/**
 * Fastify's own schema compilers (Ajv for request validation, fast-json-stringify for responses), each schema compiled
 * when first used instead of when its route is registered. Building Ajv (the JSON Schema meta-schema, then every route
 * schema) was a sixth of a cold start; a first request to `/` needs none of it. `compileRemaining()` compiles the
 * rest once the server listens (`compileSchemasAfterListening`). Same compilers, same options, same answers: only the
 * moment changes. A schema that does not compile fails its route's first request (500) and the warm-up's log line;
 * the route tests compile every schema.
 *
 * One difference: Fastify lowercases a `headers` schema's property names unless the compiler is a custom one, which
 * this counts as. Courier's one header schema (page data's `x-deployment-id`, plugins/page-data.ts) names its property
 * in lower case already, as Node gives every header name.
 */
export function lazySchemaCompilers(): LazySchemaCompilers {
  const pending = new Set<() => unknown>()
  // The packages type their factories loosely (any options, any schema); these are the shapes Fastify calls.
  const buildAjvValidator = AjvCompiler() as unknown as BuildValidator
  const buildFastJsonSerializer = SerializerSelector() as unknown as BuildSerializer

  /** `compileNow` run once, on the first call of what this returns; counted as pending until then. */
  function onFirstUse<T>(compileNow: () => T): () => T {
    let compiled: T | undefined
    const compile = (): T => {
      if (compiled === undefined) {
        compiled = compileNow()
        pending.delete(compile)
      }
      return compiled
    }
    pending.add(compile)
    return compile
  }

  const buildValidator: BuildValidator = (externalSchemas, options) => {
    let compiler: ReturnType<BuildValidator> | undefined
    return (route) => {
      const compile = onFirstUse(() => (compiler ??= buildAjvValidator(externalSchemas, options))(route))
      const lazy: Validate = function validateWhenFirstUsed(data, context) {
        const compiled = compile()
        const result = compiled(data, context)
        lazy.errors = compiled.errors
        return result
      }
      // Fastify reads it before the call, to let Ajv coerce the root value: compiling then is the first use.
      Object.defineProperty(lazy, 'schemaEnv', { get: () => compile().schemaEnv })
      return lazy
    }
  }

  const buildSerializer: BuildSerializer = (externalSchemas, options) => {
    let compiler: ReturnType<BuildSerializer> | undefined
    return (route) => {
      const compile = onFirstUse(() => (compiler ??= buildFastJsonSerializer(externalSchemas, options))(route))
      return function serializeWhenFirstUsed(data: unknown) {
        return compile()(data)
      }
    }
  }

  async function compileRemaining(): Promise<void> {
    for (const compile of [...pending]) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      compile()
    }
  }

  // Fastify types each builder as a union of Ajv's and JTD's shapes; these are the Ajv ones it calls.
  return {
    compilersFactory: { buildValidator, buildSerializer } as unknown as CompilersFactory,
    compileRemaining,
    uncompiled: () => pending.size,
  }
}

/**
 * `delayMs` after `app` listens, compiles what no request has compiled yet: the debug line `route schemas compiled`
 * says how many and how long, a schema that does not compile an error line. Cancelled when `app` closes first.
 */
export function compileSchemasAfterListening(
  app: FastifyInstance,
  compilers: LazySchemaCompilers,
  delayMs: number,
): void {
  let warmUp: NodeJS.Timeout | undefined
  app.addHook('onListen', function scheduleSchemaWarmUp(done) {
    warmUp = setTimeout(function compileRouteSchemas() {
      const startedAt = performance.now()
      const schemas = compilers.uncompiled()
      compilers.compileRemaining().then(
        () => app.log.debug({ schemas, ms: Math.round(performance.now() - startedAt) }, 'route schemas compiled'),
        (error: unknown) => app.log.error({ err: error }, 'a route schema does not compile'),
      )
    }, delayMs).unref()
    done()
  })
  app.addHook('onClose', function cancelSchemaWarmUp(_instance, done) {
    clearTimeout(warmUp)
    done()
  })
}
