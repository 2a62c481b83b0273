import type { StoredAnswer } from '../store/idempotency-keys.js'
import type { MessageRecord } from '../store/messages.js'

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' }
const NOT_SENT = new Set(['dispatch_timeout', 'queue_full', 'cancelled', 'limits_unavailable', 'database_unavailable'])
// the 503 codes a record keeps as they were answered; any other not-sent reason answered dispatch_timeout
const OWN_CODE = new Set(['queue_full', 'limits_unavailable', 'database_unavailable'])

/**
 * The answer a key gives when its first request stored none (its process died before answering):
 * what the record says happened, in the shapes of the send endpoint (CONTRACT.md 8). Never a send.
 */
export function answerFromRecord (record: MessageRecord): StoredAnswer {
  const { id, wamid, errorCode, errorText } = record
  if (wamid !== null) return answer(200, { ok: true, id, wamid, status: 'sent' })
  const code = errorCode ?? 'internal_error'
  const error = errorText ?? code
  if (NOT_SENT.has(code)) return answer(503, { ok: false, error, code: OWN_CODE.has(code) ? code : 'dispatch_timeout', id }, { 'retry-after': '1' })
  if (/^\d+$/.test(code)) {
    return answer(502, { ok: false, error: `The upstream refused the message: ${error}`, code: 'upstream_error', id, upstream: { code: Number(code), message: error } })
  }
  // upstream_timeout, upstream_unavailable, outcome_unknown, upstream_invalid_response, interrupted
  return answer(502, { ok: false, error, code, id })
}

function answer (status: number, body: object, headers: Record<string, string> = {}): StoredAnswer {
  return { status, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) }
}
