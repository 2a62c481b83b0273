import { GraphError } from './graph-error.js'
import type { Json } from './json.js'

/** Graph's `fields=` selection: the requested fields plus id; nested selections like throughput{level} keep the whole field. */
export function selectFields (node: Json, fields: unknown, defaults: string[], nodeType: string): Json {
  const wanted = typeof fields === 'string' && fields.trim() !== '' ? parseFields(fields) : defaults
  const selected: Json = {}
  for (const field of wanted) {
    if (!(field in node)) {
      const message = `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`
      throw new GraphError(100, { message, details: message })
    }
    if (node[field] !== undefined) selected[field] = node[field]
  }
  selected.id = node.id
  return selected
}

function parseFields (fields: string): string[] {
  return fields.replace(/\{[^}]*\}/g, '').split(',').map(field => field.trim()).filter(field => field !== '')
}
