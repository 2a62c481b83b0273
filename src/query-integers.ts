import type { FastifyRequest } from 'fastify'

const WHOLE_NUMBER = /^-?[0-9]{1,15}$/

/**
 * A route's preValidation: a query parameter its schema types as an integer is read as one when it
 * is written as one ("7" → 7), so the document says `integer` and the validator checks the number
 * (minimum, maximum). The app's validator coerces nothing (a body's "7" is not 7); anything else is
 * left as written, for the schema to refuse naming the parameter ("must be an integer").
 */
export async function integerQuery (request: FastifyRequest): Promise<void> {
  const properties = (request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties
  const query = request.query as Record<string, unknown> | undefined
  if (!properties || !query) return
  for (const [name, schema] of Object.entries(properties)) {
    const value = query[name]
    if (schema.type === 'integer' && typeof value === 'string' && WHOLE_NUMBER.test(value)) query[name] = Number(value)
  }
}
