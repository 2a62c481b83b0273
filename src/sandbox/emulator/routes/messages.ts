import type { FastifyPluginAsync } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { authorizeNumber } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { isObject, requireString, type Json } from '../json.js'
import { GraphError } from '../graph-error.js'
import { acceptSend } from '../outbox.js'
import { checkTemplate } from '../template-check.js'
import type { InvalidMessageId } from '../types.js'
import { validateMessage } from '../validate-message.js'

export function messagesRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function messages (app) {
    app.post<{ Params: { id: string } }>('/:id/messages', async function sendMessage (request, reply) {
      const { waba, number } = authorizeNumber(context, request)
      if (isReadReceipt(request.body)) return markRead(context, number.id, request.body)
      const message = validateMessage(request.body)
      checkMediaId(context, waba.account.wabaId, message.type, request.body as Json)
      if (await applyFaults(context.faults, request, reply, { phoneNumberId: number.id, recipient: message.to })) return reply
      const template = message.template && checkTemplate(waba, message.template)
      context.limits.admit(number, message.to)
      const previous = context.sentMessages.at(-1)?.wamid
      const wamid = acceptSend(context, waba, number, message, request.body as Json, template ? template.category : undefined)
      const invalid = context.faults.invalidMessageIdFor({ phoneNumberId: number.id, recipient: message.to })
      const id = invalid ? invalidId(invalid, previous) : wamid
      return {
        messaging_product: 'whatsapp',
        // a send by user id is answered with the user id, not a WhatsApp id
        contacts: [message.userId !== undefined ? { input: message.input, user_id: message.userId } : { input: message.input, wa_id: message.to }],
        messages: [{ ...(id !== undefined && { id }), ...(template && { message_status: 'accepted' }) }]
      }
    })
  }
}

/** The id the `invalidMessageId` fault answers with (undefined: none at all). */
function invalidId (kind: InvalidMessageId, previous: string | undefined): unknown {
  switch (kind) {
    case 'missing': return undefined
    case 'empty': return ''
    case 'number': return 1234567890
    case 'long': return `wamid.${'A'.repeat(194)}`
    case 'control': return 'wamid.HBgL\u0000NUL'
    case 'repeat': return previous ?? ''
  }
}

/**
 * A read receipt, or a typing indicator (which marks read too): the id must be a message a customer
 * sent to this number, else 131009 (upstream-facts.md 8.6). Recorded for tests in `readReceipts`.
 */
function markRead (context: EmulatorContext, phoneNumberId: string, body: Json): { success: true } {
  const messageId = requireString(body.message_id, 'message_id')
  const typing = body.typing_indicator !== undefined
  if (typing && (!isObject(body.typing_indicator) || body.typing_indicator.type !== 'text')) {
    throw new GraphError(131009, { details: 'typing_indicator.type must be text' })
  }
  if (context.inboundWamids.get(messageId) !== phoneNumberId) throw new GraphError(131009, { details: 'Invalid message_id: no message with this id was received by this number' })
  context.readReceipts.push({ phoneNumberId, messageId, typing, at: Date.now() })
  return { success: true }
}

/** Mark-as-read and typing indicators share the send endpoint. */
function isReadReceipt (body: unknown): body is Json {
  return isObject(body) && body.messaging_product === 'whatsapp' && body.status === 'read' && body.type === undefined
}

const MEDIA = new Set(['image', 'audio', 'video', 'document', 'sticker'])

/** A send by media id names a file the WABA holds (uploaded or received) that has not expired. */
function checkMediaId (context: EmulatorContext, wabaId: string, type: string, body: Json): void {
  const id = MEDIA.has(type) ? (body[type] as Json).id : undefined
  if (typeof id === 'string' && !context.media.usable(id, wabaId)) {
    throw new GraphError(131053, { details: `Param ${type}['id'] is not a valid media id for this account, or the media has expired.` })
  }
}
