import type { FastifyInstance } from 'fastify'
import type { Emulator } from './emulator/index.js'

/** A second customer of the demo, so the conversation does not mix with the media demo's. */
export const CONVERSATION_CUSTOMER = '15557654322'

export interface DemoConversation { inboundId: string, replyWamid: string, flowWamid: string }

/**
 * A conversation with no Meta account (CONTRACT.md 19): a customer asks, the demo shows a typing
 * indicator and answers with a Flow invitation; the customer replies to it (context) and completes the
 * Flow (nfm_reply → flow.completed). Dashboard → Conversations shows the thread.
 */
export async function demoConversation (app: FastifyInstance, emulator: Emulator, phoneNumberId: string, secret: string): Promise<DemoConversation> {
  const authorization = `Bearer ${secret}`
  const asked = await emulator.injectInbound({ phoneNumberId, from: CONVERSATION_CUSTOMER, payload: { body: 'Can I book a table for tonight?' } })
  const inbound = await stored(app, secret, asked.wamid)
  const typing = await app.inject({ method: 'POST', url: `/api/inbound.php?id=${inbound}&action=typing`, headers: { authorization } })
  if (typing.statusCode !== 200) throw new Error(`the demo typing indicator answered ${typing.statusCode}: ${typing.body}`)
  const sent = await app.inject({
    method: 'POST', url: '/api/messages.php', headers: { authorization, 'content-type': 'application/json' },
    payload: { to: CONVERSATION_CUSTOMER, body: 'Of course! Tap the booking form in the next message, or just reply here.', client_reference: 'demo-booking' }
  })
  if (sent.statusCode !== 200) throw new Error(`the demo reply answered ${sent.statusCode}: ${sent.body}`)
  const replyWamid = sent.json<{ wamid: string }>().wamid
  await emulator.injectInbound({ phoneNumberId, from: CONVERSATION_CUSTOMER, replyTo: replyWamid, payload: { body: 'Great, for 4 people' } })
  const flow = await emulator.injectFlowCompletion({ phoneNumberId, from: CONVERSATION_CUSTOMER, replyTo: replyWamid, flowToken: 'demo-booking', response: { party: 4, time: '20:00' } })
  return { inboundId: inbound, replyWamid, flowWamid: flow.wamid }
}

async function stored (app: FastifyInstance, secret: string, wamid: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = await app.inject({ method: 'GET', url: `/api/inbound.php?wamid=${encodeURIComponent(wamid)}`, headers: { authorization: `Bearer ${secret}` } })
    if (found.statusCode === 200) return found.json<{ message: { id: string } }>().message.id
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  throw new Error('the demo customer\'s message was not stored within 10 s')
}

export function conversationLine (demo: DemoConversation): string {
  return `[conversation] +${CONVERSATION_CUSTOMER} asked (${demo.inboundId}: read, typing shown), got an answer, replied to it (reply_to) and completed a Flow ` +
    `(flow.completed): see Dashboard → Conversations, or GET /api/conversations.php?to=${CONVERSATION_CUSTOMER}`
}
