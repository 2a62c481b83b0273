import AjvCompiler from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

// Fastify compiles every route's validators (Ajv) and serializers (fast-json-stringify) while it
// starts: about a third of a second of CPU for the gateway, the largest part of building the app.
// The sandbox and the emulator are started to be tried, most routes never called: each route's
// functions are compiled by the same compilers, with the same options, at its first request instead.
// `npm start` keeps compiling at start (a schema error fails the start, the first request is not slower).
//
// A factory of ours makes Fastify treat the compiler as custom, which only skips its lower-casing of
// header schemas' property names: every header schema here is lower case already (SendHeadersSchema).

// the compilers' own types differ by kind of schema; a route's function only has to be called
type Compile = (route: unknown) => ((data: unknown) => unknown) & { errors?: unknown }
type Factory = (externalSchemas: unknown, options: unknown) => Compile

/** The `schemaController` option of a Fastify app whose schemas compile on first use. */
export function lazySchemaController (): NonNullable<FastifyServerOptions['schemaController']> {
  const validators = AjvCompiler() as unknown as Factory
  const serializers = SerializerSelector() as unknown as Factory
  const buildValidator: Factory = (externalSchemas, options) => {
    const compile = validators(externalSchemas, options)
    return route => {
      let compiled: ReturnType<Compile> | undefined
      // Fastify reads a failed validation's errors from the function it called
      const validate: ReturnType<Compile> = data => {
        compiled ??= compile(route)
        const result = compiled(data)
        validate.errors = compiled.errors
        return result
      }
      return validate
    }
  }
  const buildSerializer: Factory = (externalSchemas, options) => {
    const compile = serializers(externalSchemas, options)
    return route => {
      let compiled: ReturnType<Compile> | undefined
      return data => (compiled ??= compile(route))(data)
    }
  }
  return { compilersFactory: { buildValidator, buildSerializer } } as unknown as NonNullable<FastifyServerOptions['schemaController']>
}
