import { parseRetryAfter, UpstreamError } from './errors.js'

/** An upstream answer's JSON on a 2xx; anything else as the UpstreamError it means. */
export function answerOf (statusCode: number, text: string, retryAfter: string | undefined): unknown {
  const parsed = parseJson(text)
  if (statusCode >= 200 && statusCode < 300 && parsed !== undefined) return parsed
  throw rejection(statusCode, parsed, retryAfter)
}

interface GraphErrorBody { error?: { message?: unknown, type?: unknown, code?: unknown, error_subcode?: unknown, error_data?: { details?: unknown }, fbtrace_id?: unknown } }

// the upstream's words are shown to clients and operators: a text, of a readable length, or nothing
const text = (value: unknown): string | undefined => typeof value === 'string' && value.trim() !== '' ? value.slice(0, 1000) : undefined

/** An upstream error answer as an UpstreamError; fields of the wrong type (an object for a message) are left out, never printed as `[object Object]`. */
export function rejection (httpStatus: number, body: unknown, retryAfter: string | undefined): UpstreamError {
  const error = (body as GraphErrorBody | undefined)?.error
  const graph = typeof error === 'object' && error !== null ? error : undefined
  const message = text(graph?.message) ?? text(error) ?? `The upstream answered HTTP ${httpStatus}`
  return new UpstreamError('rejected', message, {
    httpStatus,
    code: typeof graph?.code === 'number' ? graph.code : undefined,
    subcode: typeof graph?.error_subcode === 'number' ? graph.error_subcode : undefined,
    type: text(graph?.type),
    detail: text(graph?.error_data?.details),
    fbtraceId: text(graph?.fbtrace_id),
    retryAfterMs: parseRetryAfter(retryAfter)
  })
}

export function parseJson (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
