import type { StoredTemplate } from './accounts.js'
import { digitsOf } from './faults.js'
import type { EmulatedNumber } from './types.js'
import type { Json } from './json.js'

export function envelope (wabaId: string, field: string, value: Json, time?: number): Json {
  const entry = time === undefined ? { id: wabaId, changes: [{ field, value }] } : { id: wabaId, time, changes: [{ field, value }] }
  return { object: 'whatsapp_business_account', entry: [entry] }
}

export function messagesValue (number: EmulatedNumber, parts: Json): Json {
  return {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: digitsOf(number.displayPhoneNumber), phone_number_id: number.id },
    ...parts
  }
}

export interface InboundParts { context?: { from: string, id: string }, from?: string, fromUserId?: string, wamid: string, type: string, content: unknown, profileName: string, timestamp: number }

/** A customer's message; one known only by a business-scoped user id comes without any phone field (the BSUID rollout). */
export function inboundValue (number: EmulatedNumber, inbound: InboundParts): Json {
  const contact = { ...(inbound.from !== undefined && { wa_id: inbound.from }), ...(inbound.fromUserId !== undefined && { user_id: inbound.fromUserId }) }
  const sender = { ...(inbound.from !== undefined && { from: inbound.from }), ...(inbound.fromUserId !== undefined && { from_user_id: inbound.fromUserId }) }
  return messagesValue(number, {
    contacts: [{ profile: { name: inbound.profileName }, ...contact }],
    messages: [{ ...(inbound.context && { context: inbound.context }), ...sender, id: inbound.wamid, timestamp: String(inbound.timestamp), type: inbound.type, [inbound.type]: inbound.content }]
  })
}

export function defaultInboundContent (type: string): unknown {
  if (type === 'text') return { body: 'Hello from the emulator' }
  if (['image', 'video', 'audio', 'document', 'sticker'].includes(type)) {
    return { id: String(Date.now()), mime_type: type === 'image' ? 'image/jpeg' : 'application/octet-stream', sha256: 'ZW11bGF0b3I=' }
  }
  throw new Error(`injectInbound: type ${type} needs a payload`)
}

export function templateStatusValue (template: StoredTemplate | undefined, name: string, language: string, event: string, reason: string | null): Json {
  const id = template ? Number(template.id) : 0
  return {
    event,
    message_template_id: Number.isSafeInteger(id) ? id : template?.id,
    message_template_name: name,
    message_template_language: language,
    reason,
    ...(template ? { message_template_category: template.category } : {})
  }
}
