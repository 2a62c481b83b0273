import type { FastifyPluginAsync } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { authorizeNumber } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { isObject, requireString, type Json } from '../json.js'
import { GraphError } from '../graph-error.js'
import { acceptSend } from '../outbox.js'
import { checkTemplate } from '../template-check.js'
import { validateMessage } from '../validate-message.js'

export function messagesRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function messages (app) {
    app.post<{ Params: { id: string } }>('/:id/messages', async function sendMessage (request, reply) {
      const { waba, number } = authorizeNumber(context, request)
      if (isReadReceipt(request.body)) {
        requireString(request.body.message_id, 'message_id')
        return { success: true }
      }
      const message = validateMessage(request.body)
      checkMediaId(context, waba.account.wabaId, message.type, request.body as Json)
      if (await applyFaults(context.faults, request, reply, { phoneNumberId: number.id, recipient: message.to })) return reply
      const template = message.template && checkTemplate(waba, message.template)
      context.limits.admit(number, message.to)
      const wamid = acceptSend(context, waba, number, message, request.body as Json, template ? template.category : undefined)
      return {
        messaging_product: 'whatsapp',
        contacts: [{ input: message.input, wa_id: message.to }],
        messages: [template ? { id: wamid, message_status: 'accepted' } : { id: wamid }]
      }
    })
  }
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
