import type { FastifyRequest } from 'fastify'
import { isObject } from './checks.js'

const ALIASES = { body: 'text', template: 'template_name' } as const

/** preValidation: when a field and its alias are both given the field wins, and the alias is not even validated. */
export async function preferFieldsOverAliases (request: FastifyRequest): Promise<void> {
  const body = request.body
  if (!isObject(body)) return
  for (const [field, alias] of Object.entries(ALIASES)) {
    if (body[field] !== undefined) delete body[alias]
  }
}
