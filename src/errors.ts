/** Every error the gateway answers with: its HTTP status and the envelope's `code` (CONTRACT.md section 2). */
export class AppError extends Error {
  constructor (
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: { field?: string, upstream?: { code: number | string | null, message: string }, retryAfterSeconds?: number, allow?: string, id?: string, at?: { frees_at?: string, next_edit_at?: string } } = {}
  ) {
    super(message)
  }
}

/** The error of a send that created a log record names the record (CONTRACT.md 7). */
export function withRecordId (error: unknown, id: string): unknown {
  return error instanceof AppError ? new AppError(error.statusCode, error.code, error.message, { ...error.extra, id }) : error
}

export const unauthorized = (message = 'API key missing, invalid or revoked') => new AppError(401, 'unauthorized', message)
export const planUpgradeRequired = () => new AppError(403, 'plan_upgrade_required', 'API access requires the Growth or Scale plan')
export const insufficientScope = (scope: string) =>
  new AppError(403, 'insufficient_scope', `This API key lacks the scope ${scope}: use a key that has it`)
export const numberNotAllowed = (phoneNumberId: string, allowed: readonly string[]) =>
  new AppError(403, 'insufficient_scope', `This API key may not send from phone_number_id ${phoneNumberId} (it may send from ${allowed.join(', ')})`)
export const forbidden = (message: string) => new AppError(403, 'forbidden', message)
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message)
export const methodNotAllowed = (allow: string[]) =>
  new AppError(405, 'method_not_allowed', `Method not allowed; allowed: ${allow.join(', ')}`, { allow: allow.join(', ') })
/** 409: pause, resume or cancel asked of a campaign that has ended (CONTRACT.md 15); nothing changed. */
export const campaignEnded = (status: string, action: 'pause' | 'resume' | 'cancel') =>
  new AppError(409, 'campaign_ended', `The campaign is ${status}: it can no longer be ${action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'cancelled'}`)
export const noActiveConnection = () => new AppError(409, 'no_active_connection', 'The workspace has no active connected number')
/** 413 naming the limit in force (CONTRACT.md 12), and the setting that sets it when one route has its own. */
export const payloadTooLarge = (limit: number, setting?: string) =>
  new AppError(413, 'payload_too_large', `Request body is larger than ${limit} bytes${setting ? ` (${setting})` : ''}`)
export const unsupportedEncoding = (encoding: string) =>
  new AppError(415, 'unsupported_media_type', `Unsupported Content-Encoding ${JSON.stringify(encoding)}: send the body uncompressed`)
/** 415 naming the content type received (CONTRACT.md 12), or saying that none was, and what the route takes. */
export const unsupportedMediaType = (type: string | undefined, accepted = 'application/json or form fields') => new AppError(415, 'unsupported_media_type', type
  ? `Unsupported content type ${JSON.stringify(type.slice(0, 200))}: send ${accepted}`
  : `The request has a body but no Content-Type: send ${accepted}`)
export const invalidRequest = (message: string, field?: string) => new AppError(422, 'invalid_request', message, field ? { field } : {})
export const rateLimited = (retryAfterSeconds: number) =>
  new AppError(429, 'rate_limited', `Too many requests; retry in ${retryAfterSeconds} s`, { retryAfterSeconds })
export const serviceUnavailable = (code: 'dispatch_timeout' | 'queue_full' | 'not_ready', message: string, retryAfterSeconds = 1) =>
  new AppError(503, code, message, { retryAfterSeconds })
/** A dependency blinked (src/faults): nothing was done that the answer does not say; the same request may be made again. */
export const databaseUnavailable = (message = 'The database is unavailable; nothing was done, retry shortly') =>
  new AppError(503, 'database_unavailable', message, { retryAfterSeconds: 2 })
export const limitsUnavailable = () =>
  new AppError(503, 'limits_unavailable', 'Shared rate limits are unavailable (Redis unreachable); nothing was sent, retry shortly', { retryAfterSeconds: 1 })
export const idempotencyMismatch = () =>
  new AppError(422, 'idempotency_mismatch', 'This Idempotency-Key was used with a different message; use a new key for a new message')
export const idempotencyInProgress = () =>
  new AppError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly', { retryAfterSeconds: 1 })
export const outsideServiceWindow = () => new AppError(422, 'outside_service_window',
  'The recipient has not written to this number in the last 24 hours: outside the service window only a template may be sent; nothing was sent')
export const unsupportedMedia = (message: string) => new AppError(422, 'unsupported_media', message, { field: 'file' })
/** `limit` as src/media/kinds.ts's sizeLabel states it: the 413 and the kinds' 422 name their limits alike. */
/** 502: the upstream's bytes missed its own SHA-256 on two fetches (CONTRACT.md 13); none were served. */
export const mediaChecksumMismatch = () => new AppError(502, 'upstream_invalid_response',
  'The upstream sent bytes that do not match the file\'s SHA-256, twice: nothing was served; try again later')
export const fileTooLarge = (limit: string) =>
  new AppError(413, 'payload_too_large', `The file is larger than ${limit}, the limit of this gateway (MEDIA_MAX_BYTES)`)
// Audience rules (CONTRACT.md 14)
export const messagingLimitReached = (limit: number, retryAfterSeconds: number) => new AppError(429, 'messaging_limit_reached',
  `The messaging limit of ${limit} unique recipients of business-initiated messages in 24 hours is reached; a slot frees in ${retryAfterSeconds} s; nothing was sent`, { retryAfterSeconds })
/** `field`: the request's name for the recipient, `to` (a phone number) or `recipient` (a business-scoped user id). */
export const recipientOptedOut = (field: 'to' | 'recipient') => new AppError(422, 'recipient_opted_out',
  'The recipient opted out of marketing messages (suppression list): MARKETING templates are not sent to them; nothing was sent', { field })
export const recipientCoolingDown = (until: Date, field: 'to' | 'recipient') => new AppError(422, 'recipient_cooling_down',
  `The recipient reached the upstream's per-user marketing cap (131049): MARKETING templates to them wait until ${until.toISOString()}; nothing was sent`, { field })
export const templateNotFound = (name: string) => new AppError(422, 'template_not_found',
  `Template ${name} is not in the WhatsApp Business Account's catalog in any language (re-synced from the upstream); nothing was sent`, { field: 'template' })
export const templateNotApproved = (name: string, language: string, status: string) => new AppError(422, 'template_not_approved',
  `template ${name} in ${language} is ${status}, not APPROVED, and cannot be sent; nothing was sent`, { field: 'template' })
export const templateParameters = (message: string) => new AppError(422, 'template_parameters', message, { field: 'components' })

/** 422: a rule of the upstream's a template breaks (CONTRACT.md 20), `field` its JSON path within the template. */
export const invalidTemplate = (problem: { field: string, error: string }, more = 0) => new AppError(422, 'invalid_template',
  `${problem.field === '' ? '' : `${problem.field}: `}${problem.error}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'}: outbound templates plan lists them all)` : ''}; nothing was sent upstream`, { field: problem.field })
export const templateExists = (name: string, language: string) => new AppError(409, 'template_exists',
  `A template ${name} in ${language} exists already: edit it (POST /api/templates.php?id=…) or choose another name`, { field: 'name' })
export const templateNameLocked = (name: string, freesAt: Date) => new AppError(422, 'template_name_locked',
  `The name ${name} was used by an approved template deleted less than 30 days ago: it can be used again from ${freesAt.toISOString()}`, { field: 'name', at: { frees_at: freesAt.toISOString() } })
export const templateNotEditable = (status: string) => new AppError(422, 'template_not_editable',
  `A template with status ${status} cannot be edited: only APPROVED, REJECTED or PAUSED ones can`)
export const templateEditLimit = (nextEditAt: Date) => new AppError(422, 'template_edit_limit',
  `An approved template may be edited once in 24 hours and 10 times in 30 days: the next edit is possible from ${nextEditAt.toISOString()}`, { at: { next_edit_at: nextEditAt.toISOString() } })
export const tooOld = () => new AppError(422, 'too_old', 'The message was received more than 30 days ago: the upstream no longer takes a read mark for it')
/** MEDIA_STORE's bucket did not answer (CONTRACT.md 22): nothing was stored or served; the mirror tries again. */
export const mediaStoreUnavailable = (cause?: unknown) => Object.assign(
  new AppError(503, 'media_store_unavailable', 'The media store is unavailable; retry shortly', { retryAfterSeconds: 2 }), { cause })
