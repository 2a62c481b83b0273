import { createHash } from 'node:crypto'
import type { PendingMessage } from '../store/messages.js'

/**
 * "The same body" (CONTRACT.md 8) is the same message after parsing and normalisation: the upstream
 * payload we compose (JSON and the equivalent form compose the same), its sending number and the
 * client's reference; object keys sorted, the record's own id left out.
 */
export function fingerprint (message: PendingMessage): string {
  const { biz_opaque_callback_data: _recordId, ...payload } = message.payload as Record<string, unknown>
  const canonical = canonicalJson({ payload, phone_number_id: message.phoneNumberId, client_reference: message.clientReference ?? null })
  return createHash('sha256').update(canonical).digest('hex')
}

function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
