import type { EmulatorContext } from './context.js'
import { digitsOf } from './faults.js'
import { defaultInboundContent, envelope, inboundValue, templateStatusValue } from './notifications.js'
import { sampleFile, type SampleKind } from '../sample-media.js'
import type { DeliveryStatus, FlowCompletion, InboundMedia, InboundMessage, SendWebhookOptions, TemplateStatusUpdate } from './types.js'
import { newWamid } from './wamid.js'

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker'])

export async function injectInbound (context: EmulatorContext, message: InboundMessage): Promise<{ wamid: string, status: DeliveryStatus, mediaId?: string }> {
  const { waba, number } = context.accounts.number(message.phoneNumberId)
  if (message.from === undefined && message.fromUserId === undefined) throw new Error('injectInbound: from or fromUserId is required')
  const from = message.from === undefined ? undefined : digitsOf(message.from)
  const type = message.type ?? (message.media ? 'image' : 'text')
  const wamid = message.wamid ?? newWamid(from ?? message.fromUserId ?? '')
  const media = message.payload === undefined && MEDIA_TYPES.has(type) ? inboundMedia(context, waba.account.wabaId, type as SampleKind, message.media) : undefined
  context.inboundWamids.set(wamid, number.id)
  const value = inboundValue(number, {
    context: message.replyTo === undefined ? undefined : { from: number.displayPhoneNumber.replace(/\D/g, ''), id: message.replyTo },
    from,
    fromUserId: message.fromUserId,
    wamid,
    type,
    content: message.payload ?? media?.content ?? defaultInboundContent(type),
    profileName: message.profileName ?? 'Emulated Customer',
    timestamp: Math.floor(Date.now() / 1000)
  })
  const status = await sendWebhook(context, waba.account.wabaId, envelope(waba.account.wabaId, 'messages', value))
  return { wamid, status, ...(media && { mediaId: media.id }) }
}

/** A completed Flow arrives as an ordinary messages webhook: interactive nfm_reply, replying to the flow message (upstream-facts.md 8.7). */
export async function injectFlowCompletion (context: EmulatorContext, completion: FlowCompletion): Promise<{ wamid: string, status: DeliveryStatus }> {
  const response = typeof completion.response === 'string' ? completion.response : JSON.stringify({ flow_token: completion.flowToken ?? 'unused', ...completion.response })
  const { wamid, status } = await injectInbound(context, {
    phoneNumberId: completion.phoneNumberId,
    from: completion.from,
    fromUserId: completion.fromUserId,
    replyTo: completion.replyTo,
    type: 'interactive',
    payload: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: response } }
  })
  return { wamid, status }
}

/** A customer's file, held upstream: the webhook carries its id, type and SHA-256 in base64 (the media node gives it in hex). */
function inboundMedia (context: EmulatorContext, wabaId: string, type: SampleKind, given?: InboundMedia): { id: string, content: Record<string, unknown> } {
  const file = given ?? { ...sampleFile(type), filename: type === 'document' ? sampleFile(type).filename : undefined }
  const stored = context.media.add({ wabaId, bytes: file.bytes, mimeType: file.mimeType, filename: file.filename })
  const content: Record<string, unknown> = { id: stored.id, mime_type: stored.mimeType, sha256: Buffer.from(stored.sha256, 'hex').toString('base64') }
  if (given?.caption !== undefined) content.caption = given.caption
  if (type === 'document' && file.filename !== undefined) content.filename = file.filename
  if (given?.voice !== undefined) content.voice = given.voice
  if (given?.animated !== undefined) content.animated = given.animated
  return { id: stored.id, content }
}

/** Changes the emulator's own template status first, so a sync triggered by the webhook sees the new state. */
export async function sendTemplateStatusUpdate (context: EmulatorContext, update: TemplateStatusUpdate): Promise<DeliveryStatus> {
  const template = context.accounts.applyTemplateEvent(update.wabaId, update.name, update.language, update.event)
  const value = templateStatusValue(template, update.name, update.language, update.event, update.reason === undefined ? 'NONE' : update.reason)
  const body = envelope(update.wabaId, 'message_template_status_update', value, Math.floor(Date.now() / 1000))
  return await sendWebhook(context, update.wabaId, body)
}

export async function sendWebhook (context: EmulatorContext, wabaId: string, body: unknown, options: SendWebhookOptions = {}): Promise<DeliveryStatus> {
  const callback = context.accounts.waba(wabaId).callback
  if (!callback) throw new Error(`no webhook callback registered for WABA ${wabaId} (POST /${wabaId}/subscribed_apps with override_callback_uri first)`)
  return await context.webhooks.post(callback, body, options)
}

// Meta's tiers from the lowest: a change along them is an UPGRADE or a DOWNGRADE
const TIERS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED']

/** A messaging-limit change for the whole WABA: its numbers report the tier, and a phone_number_quality_update says so (upstream-facts.md 4.8). */
export async function sendMessagingLimitUpdate (context: EmulatorContext, update: { wabaId: string, tier: string }): Promise<DeliveryStatus> {
  const waba = context.accounts.waba(update.wabaId)
  const old = waba.account.phoneNumbers[0]?.messagingLimitTier ?? 'TIER_2K'
  for (const number of waba.account.phoneNumbers) number.messagingLimitTier = update.tier
  const event = TIERS.indexOf(update.tier) < TIERS.indexOf(old) ? 'DOWNGRADE' : 'UPGRADE'
  const value = { display_phone_number: digitsOf(waba.account.phoneNumbers[0]?.displayPhoneNumber ?? ''), event, old_limit: old, max_daily_conversations_per_business: update.tier }
  return await sendWebhook(context, update.wabaId, envelope(update.wabaId, 'phone_number_quality_update', value, Math.floor(Date.now() / 1000)))
}

/** A user stopped or resumed marketing messages (`user_preferences`, upstream-facts.md 4.9), named by phone number, business-scoped user id, or both. */
export async function sendUserPreference (context: EmulatorContext, update: { phoneNumberId: string, waId?: string, userId?: string, value: 'stop' | 'resume' }): Promise<DeliveryStatus> {
  const { waba, number } = context.accounts.number(update.phoneNumberId)
  const user = { ...(update.waId !== undefined && { wa_id: digitsOf(update.waId) }), ...(update.userId !== undefined && { user_id: update.userId }) }
  const value = {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: digitsOf(number.displayPhoneNumber), phone_number_id: number.id },
    contacts: [{ ...user, profile: { name: 'Emulated Customer' } }],
    user_preferences: [{
      ...user,
      detail: update.value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
      category: 'marketing_messages',
      value: update.value,
      timestamp: Math.floor(Date.now() / 1000)
    }]
  }
  return await sendWebhook(context, waba.account.wabaId, envelope(waba.account.wabaId, 'user_preferences', value, Math.floor(Date.now() / 1000)))
}

/**
 * A number's quality moves (upstream-facts.md 4.8): FLAGGED sets its node's rating RED, UNFLAGGED
 * GREEN, and a phone_number_quality_update says so, naming the number by its display number only.
 */
export async function sendQualityUpdate (context: EmulatorContext, update: { phoneNumberId: string, event: 'FLAGGED' | 'UNFLAGGED' }): Promise<DeliveryStatus> {
  const { waba, number } = context.accounts.number(update.phoneNumberId)
  number.qualityRating = update.event === 'FLAGGED' ? 'RED' : 'GREEN'
  const value = { display_phone_number: digitsOf(number.displayPhoneNumber), event: update.event, max_daily_conversations_per_business: number.messagingLimitTier ?? 'TIER_2K' }
  return await sendWebhook(context, waba.account.wabaId, envelope(waba.account.wabaId, 'phone_number_quality_update', value, Math.floor(Date.now() / 1000)))
}

/** A template's quality score changed (message_template_quality_update, upstream-facts.md 8.5). */
export async function sendTemplateQualityUpdate (context: EmulatorContext, update: { wabaId: string, name: string, language: string, score: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN', previous?: string }): Promise<DeliveryStatus> {
  const template = context.accounts.waba(update.wabaId).templates.find(t => t.name === update.name && t.language === update.language)
  const id = template ? Number(template.id) : 0
  const value = {
    previous_quality_score: update.previous ?? 'GREEN',
    new_quality_score: update.score,
    message_template_id: Number.isSafeInteger(id) ? id : template?.id,
    message_template_name: update.name,
    message_template_language: update.language
  }
  return await sendWebhook(context, update.wabaId, envelope(update.wabaId, 'message_template_quality_update', value, Math.floor(Date.now() / 1000)))
}
