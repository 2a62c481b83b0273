import { UpstreamError } from './errors.js'
import type { SendResult } from './types.js'

// Meta's wamids are ~60 characters of base64 after "wamid."; anything far longer is not one.
const MAX_LENGTH = 128
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * The message id of a send the upstream accepted (a 2xx), read strictly (CONTRACT.md 12): present,
 * a string of 1–128 characters without control characters. Anything else throws the `invalid`
 * UpstreamError, an unknown outcome: the upstream may have sent it, so it is never retried.
 */
export function acceptedMessage (body: string): SendResult {
  let answer: { messages?: Array<{ id?: unknown, message_status?: unknown }> } | undefined
  try {
    answer = JSON.parse(body) as typeof answer
  } catch {
    throw invalid('an answer that is not JSON')
  }
  const sent = Array.isArray(answer?.messages) ? answer.messages[0] : undefined
  const id = sent?.id
  if (id === undefined || id === null) throw invalid('no message id')
  if (typeof id !== 'string') throw invalid(`a message id that is not a string (${typeof id})`)
  if (id.length === 0) throw invalid('an empty message id')
  if (id.length > MAX_LENGTH) throw invalid(`a message id of ${id.length} characters`)
  if (CONTROL.test(id)) throw invalid('a message id with control characters')
  return { wamid: id, messageStatus: typeof sent?.message_status === 'string' ? sent.message_status : undefined }
}

function invalid (what: string): UpstreamError {
  return new UpstreamError('invalid', `The upstream accepted the message with ${what}; its outcome is unknown`)
}
