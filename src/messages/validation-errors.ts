import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { invalidRequest, type AppError } from '../errors.js'
import { PATTERN_RULES } from './schemas.js'

/** The route's schemaErrorFormatter: one 422 naming the field at fault, in words rather than Ajv's. */
export function bodyValidationError (errors: FastifySchemaValidationError[]): AppError {
  // A failed anyOf is reported after the errors of each branch; the anyOf itself is the fault.
  const issue = errors.find(error => error.keyword === 'anyOf') ?? errors[0]
  const segments = issue.instancePath.split('/').slice(1).map(segment => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (issue.keyword === 'required') segments.push(String(issue.params.missingProperty))
  if (segments.length === 0) return invalidRequest('The request body must be a JSON object or form fields')
  return invalidRequest(`${fieldPath(segments)} ${rule(issue, errors)}`, segments[0])
}

/** components[0].parameters[1].text */
export function fieldPath (segments: string[]): string {
  return segments.map((segment, index) => /^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`).join('')
}

function rule (issue: FastifySchemaValidationError, all: FastifySchemaValidationError[]): string {
  const params = issue.params as Record<string, unknown>
  switch (issue.keyword) {
    case 'required': return 'is required'
    case 'type': return `must be ${kind(String(params.type))}`
    case 'minLength': return params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters long`
    case 'maxLength': return `must be at most ${params.limit} characters long`
    case 'pattern': return PATTERN_RULES[String(params.pattern)] ?? 'has an invalid format'
    case 'enum': return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`
    case 'minimum': return `must be at least ${params.limit}`
    case 'maximum': return `must be at most ${params.limit}`
    case 'anyOf': {
      const kinds = all.filter(error => error.keyword === 'type' && error.instancePath === issue.instancePath).map(error => kind(String(error.params.type)))
      return kinds.length > 0 ? `must be ${kinds.join(' or ')}` : 'has an invalid value'
    }
    default: return issue.message ?? 'is invalid'
  }
}

function kind (type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}
