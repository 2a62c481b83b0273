import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GraphError } from './graph-error.js'

type Done = (error: Error | null, body?: unknown) => void

/** Graph takes JSON (an empty body included) and form fields whose values may themselves be JSON. */
export function registerBodyParsers (app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJson (_request: FastifyRequest, body: string | Buffer, done: Done) {
    const text = body.toString()
    if (text.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(text))
    } catch {
      done(new GraphError(100, { details: 'The request body is not valid JSON.' }))
    }
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, function parseForm (_request: FastifyRequest, body: string | Buffer, done: Done) {
    const fields: Record<string, unknown> = {}
    for (const [key, value] of new URLSearchParams(body.toString())) fields[key] = jsonOrText(value)
    done(null, fields)
  })
}

function jsonOrText (value: string): unknown {
  if (!/^\s*[[{]/.test(value)) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}
