import { parseRetryAfter, UpstreamError } from './errors.js'

/** An upstream answer's JSON on a 2xx; anything else as the UpstreamError it means. */
export function answerOf (statusCode: number, text: string, retryAfter: string | undefined): unknown {
  const parsed = parseJson(text)
  if (statusCode >= 200 && statusCode < 300 && parsed !== undefined) return parsed
  throw rejection(statusCode, parsed, retryAfter)
}

interface GraphErrorBody { error?: { message?: string, type?: string, code?: number, error_subcode?: number, error_data?: { details?: string }, fbtrace_id?: string } }

export function rejection (httpStatus: number, body: unknown, retryAfter: string | undefined): UpstreamError {
  const graph = (body as GraphErrorBody | undefined)?.error
  const message = graph?.message ?? `The upstream answered HTTP ${httpStatus}`
  return new UpstreamError('rejected', message, {
    httpStatus,
    code: typeof graph?.code === 'number' ? graph.code : undefined,
    subcode: graph?.error_subcode,
    type: graph?.type,
    detail: graph?.error_data?.details,
    fbtraceId: graph?.fbtrace_id,
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
