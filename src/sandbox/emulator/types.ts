import type { IncomingHttpHeaders } from 'node:http'

export interface EmulatedNumber {
  id: string
  displayPhoneNumber: string
  verifiedName: string
  qualityRating?: string
  throughputLevel?: 'STANDARD' | 'HIGH'
  messagingLimitTier?: string
}

export interface EmulatedTemplate {
  id?: string
  name: string
  language: string
  status: string
  category: string
  components?: unknown[]
  /** POSITIONAL (default) or NAMED */
  parameterFormat?: string
  rejectedReason?: string
}

export interface WabaAccount {
  wabaId: string
  accessToken: string
  phoneNumbers: EmulatedNumber[]
  templates: EmulatedTemplate[]
  name?: string
}

export type StatusName = 'sent' | 'delivered' | 'read' | 'failed'

export interface StatusDelays { sent: number, delivered: number, read: number, failed?: number }

export interface AsyncError { code: number, title?: string, details?: string }

export interface StatusOptions {
  statuses?: StatusName[]
  delaysMs?: Partial<StatusDelays>
  duplicate?: boolean
  reorder?: boolean
  failWith?: AsyncError
}

export interface Faults {
  latencyMs?: number | { min: number, max: number }
  errorRate?: number
  transient?: { code: number, times?: number, httpStatus?: number, details?: string }
  permanent?: { code: number, httpStatus?: number, details?: string }
  hang?: boolean
  reset?: boolean
  retryAfter?: number
  /**
   * Accept the send (it is recorded and its status webhooks follow) but answer 200 with a message
   * id no client should trust: none (`missing`), `empty`, a `number`, 200 characters (`long`), one
   * with a NUL (`control`), or the id of the previous accepted message (`repeat`).
   */
  invalidMessageId?: InvalidMessageId
}

export type InvalidMessageId = 'missing' | 'empty' | 'number' | 'long' | 'control' | 'repeat'

export type FaultScope = 'global' | { recipient: string } | { phoneNumberId: string }

export interface EmulatorOptions {
  port?: number
  host?: string
  basePath?: string
  appSecret?: string
  accounts?: WabaAccount[]
  throughputMps?: number
  pairRateBurst?: number
  pairRateIntervalMs?: number
  statusDelaysMs?: StatusDelays
  webhookRetries?: number[]
  logger?: boolean
  /** how long a media download URL is valid (default 5 minutes, as upstream) */
  mediaUrlTtlMs?: number
  /** sends naming a media id the emulator never issued are refused (131053); default false: any unknown id is accepted */
  strictMediaIds?: boolean
  /** how long a created or edited template stays PENDING before its review ends (default 2000 ms, as CONTRACT.md 20 says) */
  templateReviewMs?: number
}

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, unknown>
  headers: IncomingHttpHeaders
  body: unknown
  at: number
}

export interface SentMessage {
  wamid: string
  phoneNumberId: string
  to: string
  payload: Record<string, unknown>
  at: number
}

export interface WebhookDelivery {
  url: string
  body: unknown
  status: number | 'error'
  at: number
}

export interface EmulatorStats {
  accepted: Record<string, number>
  errors: Record<number, number>
}

export type DeliveryStatus = number | 'error'

export interface InboundMessage {
  phoneNumberId: string
  /** the customer's phone number; absent for a customer known only by a business-scoped user id */
  from?: string
  /** the customer's business-scoped user id (`from_user_id`, `contacts[].user_id`) */
  fromUserId?: string
  type?: string
  payload?: unknown
  wamid?: string
  profileName?: string
  /** a media message's file (image, video, audio, document, sticker): stored upstream, its id in the webhook; default: a small generated file */
  media?: InboundMedia
  /** a reply: the wamid it answers (context.id; context.from is the business number) */
  replyTo?: string
}

/** A read receipt (or typing indicator) the emulator accepted. */
export interface ReadReceipt { phoneNumberId: string, messageId: string, typing: boolean, at: number }

/** A customer's completed WhatsApp Flow (upstream-facts.md 8.7): an interactive nfm_reply answering the flow message. */
export interface FlowCompletion {
  phoneNumberId: string
  from?: string
  fromUserId?: string
  /** the wamid of the flow message sent: the reply's context.id */
  replyTo: string
  flowToken?: string
  /** the terminal screen's payload; `response_json` is it with flow_token, as a string (or this string as is) */
  response?: Record<string, unknown> | string
}

export interface InboundMedia {
  bytes: Buffer
  mimeType: string
  caption?: string
  filename?: string
  /** audio: a voice note */
  voice?: boolean
  /** sticker */
  animated?: boolean
}

/** A file the emulated upstream holds, as tests see it. */
export interface MediaInfo { id: string, wabaId: string, mimeType: string, sha256: string, fileSize: number, bytes: Buffer, downloads: number }

export interface TemplateStatusUpdate {
  wabaId: string
  name: string
  language: string
  event: string
  reason?: string | null
}

export interface SendWebhookOptions {
  /** a forged X-Hub-Signature-256 value; null sends none */
  signature?: string | null
  /** retry a non-2xx answer like the upstream does (default: true unless the signature is forged) */
  retry?: boolean
}

export interface Emulator {
  url: string
  appSecret: string
  requests: RecordedRequest[]
  sentMessages: SentMessage[]
  /** every read receipt and typing indicator accepted, in order */
  readReceipts: ReadReceipt[]
  stats: EmulatorStats
  webhookDeliveries: WebhookDelivery[]
  addAccount (account: WabaAccount): void
  setTemplates (wabaId: string, templates: EmulatedTemplate[]): void
  setFaults (scope: FaultScope, faults: Faults): void
  clearFaults (): void
  setStatusOptions (scope: 'global' | { recipient: string }, options: StatusOptions): void
  injectInbound (message: InboundMessage): Promise<{ wamid: string, status: DeliveryStatus, mediaId?: string }>
  /** messages the number received without a webhook here (a bench seeds them into the database): their read receipts and typing indicators are accepted */
  knowInbound (phoneNumberId: string, wamids: string[]): void
  /** a customer completes a WhatsApp Flow: an interactive nfm_reply webhook replying to the flow message */
  injectFlowCompletion (completion: FlowCompletion): Promise<{ wamid: string, status: DeliveryStatus }>
  /** stores a file as if a customer had sent it (or it had been uploaded) to the WABA; returns its media id */
  addMedia (wabaId: string, media: { bytes: Buffer, mimeType: string, filename?: string }): string
  /** the file behind a media id, while it lives */
  media (id: string): MediaInfo | undefined
  /** the id's end of life (7 days inbound, 30 uploaded): GET /{id} and its URLs answer nothing from now on */
  expireMedia (id: string): void
  /** the next `times` media downloads answer 500 */
  failMediaDownloads (times: number): void
  /** the next `times` media downloads answer 200 with bytes that do not match the node's sha256 */
  corruptMediaDownloads (times: number): void
  sendTemplateStatusUpdate (update: TemplateStatusUpdate): Promise<DeliveryStatus>
  /** sets the tier of every number of the WABA and sends a phone_number_quality_update */
  sendMessagingLimitUpdate (update: { wabaId: string, tier: string }): Promise<DeliveryStatus>
  /** a user_preferences webhook: the user stopped or resumed marketing messages */
  sendUserPreference (update: { phoneNumberId: string, waId?: string, userId?: string, value: 'stop' | 'resume' }): Promise<DeliveryStatus>
  /** what the number's node says as its quality_rating from now on (no webhook: an hourly read finds it) */
  setQualityRating (phoneNumberId: string, rating: string): void
  /** FLAGGED (the node's rating RED) or UNFLAGGED (GREEN), told by a phone_number_quality_update */
  sendQualityUpdate (update: { phoneNumberId: string, event: 'FLAGGED' | 'UNFLAGGED' }): Promise<DeliveryStatus>
  /** a message_template_quality_update with the template's new score */
  sendTemplateQualityUpdate (update: { wabaId: string, name: string, language: string, score: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN', previous?: string }): Promise<DeliveryStatus>
  sendWebhook (wabaId: string, body: unknown, options?: SendWebhookOptions): Promise<DeliveryStatus>
  callbackFor (wabaId: string): string | undefined
  idle (): Promise<void>
  reset (): void
  close (): Promise<void>
}
