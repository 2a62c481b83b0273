import type { PendingMessage } from '../store/messages.js'
import type { VerifiedKey } from '../store/api-keys.js'
import type { PhoneNumber } from '../store/connections.js'
import { newId } from '../store/ids.js'
import { isUserId } from '../resources/recipient.js'
import type { ComposedMessage } from './compose.js'

/** The log record of a send, with the upstream payload it will carry; its id is known before anything is sent. */
export function pendingMessage (message: ComposedMessage, key: Pick<VerifiedKey, 'id' | 'workspaceId'>, sender: PhoneNumber, clientReference?: string): PendingMessage {
  const id = newId('msg')
  return {
    id,
    workspaceId: key.workspaceId,
    apiKeyId: key.id,
    phoneNumberId: sender.phoneNumberId,
    recipient: message.recipient,
    type: message.type,
    payload: upstreamPayload(message, id),
    clientReference: clientReference ?? null
  }
}

/** The body of POST /{phone-number-id}/messages (upstream-facts.md 1.2–1.6). */
export function upstreamPayload (message: ComposedMessage, recordId: string): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    // a business-scoped user id goes in the upstream's own field for it (upstream-facts.md 1.2)
    ...(isUserId(message.recipient) ? { recipient: message.recipient } : { to: message.recipient }),
    type: message.type,
    ...(message.replyTo !== undefined && { context: { message_id: message.replyTo } }),
    [message.type]: message.content,
    // Status webhooks echo it, so they can be matched to the record even before its wamid is stored.
    biz_opaque_callback_data: recordId
  }
}
