import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { connectWorkspace } from '../../src/connections/connect.js'
import { addRelay } from '../../src/relay/targets.js'
import type { TestGateway } from '../helpers/gateway.js'
import { postWebhook, signature } from '../helpers/webhook.js'
import type { Received } from '../events/receiver.js'

let next = 0

/** A workspace connected to a WABA of its own (so that no other test's workspace owns its numbers), with `numbers` numbers. */
export async function ownWorkspace (gateway: TestGateway, numbers = 1) {
  const n = ++next
  const wabaId = `3800000000${String(n).padStart(4, '0')}0`
  const phoneNumberIds = Array.from({ length: numbers }, (_, i) => `3810000000${String(n).padStart(4, '0')}${i}`)
  gateway.emulator.addAccount({
    wabaId,
    accessToken: `relay-token-${n}`,
    phoneNumbers: phoneNumberIds.map((id, i) => ({ id, displayPhoneNumber: `+1 555 38${String(n).padStart(3, '0')}${i}`, verifiedName: `Relay ${n}.${i}` })),
    templates: []
  })
  const workspace = await gateway.app.workspaces.create(`relay ${n}`, 'growth')
  await connectWorkspace(gateway.app.connectDeps, { workspaceId: workspace.id, wabaId, accessToken: `relay-token-${n}` })
  const { secret } = await gateway.app.keys.create(workspace.id, 'relay test')
  return { workspaceId: workspace.id, wabaId, phoneNumberIds, authorization: `Bearer ${secret}` }
}

export type OwnWorkspace = Awaited<ReturnType<typeof ownWorkspace>>

export async function relayTo (app: FastifyInstance, workspaceId: string, url: string, options: { fields?: string[], phoneNumberIds?: string[], signing?: 'app' | 'own' } = {}) {
  const { relay, secret } = await addRelay(app, { workspaceId, url, ...options })
  return { id: relay.id, secret }
}

/** A `messages` change for one of the workspace's numbers: an inbound text. */
export function messageChange (phoneNumberId: string, wamid: string, text = 'hello') {
  return {
    field: 'messages',
    value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId },
      contacts: [{ profile: { name: 'Ana' }, wa_id: '15557654321' }],
      messages: [{ from: '15557654321', id: wamid, timestamp: '1795000000', type: 'text', text: { body: text } }]
    }
  }
}

export function templateChange (templateId: number) {
  return { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: templateId, message_template_name: 'order_update', message_template_language: 'en_US', reason: 'NONE' } }
}

export function entry (wabaId: string, changes: unknown[]) {
  return { id: wabaId, changes }
}

export function delivery (entries: unknown[]) {
  return { object: 'whatsapp_business_account', entry: entries }
}

/** Posts a raw body to the gateway's webhook, signed as Meta signs it. */
export async function fromMeta (gateway: TestGateway, raw: string): Promise<number> {
  return (await postWebhook(gateway.url, raw, gateway.emulator.appSecret)).status
}

/**
 * Chatwoot's check since PR #14280 (meta_token_verify_concern.rb): "sha256=" + hex HMAC-SHA256 of
 * request.raw_post keyed with WHATSAPP_APP_SECRET, secure_compare'd with X-Hub-Signature-256.
 */
export function chatwootAccepts (received: Received, appSecret: string): boolean {
  const header = received.headers['x-hub-signature-256']
  if (typeof header !== 'string') return false
  // signature(): "sha256=" + OpenSSL::HMAC.hexdigest('SHA256', secret, raw_post), as Chatwoot computes it
  const expected = Buffer.from(signature(received.raw, appSecret))
  return expected.length === header.length && timingSafeEqual(expected, Buffer.from(header))
}

/** n8n's WhatsApp Trigger (GenericFunctions.ts): hex HMAC-SHA256 of req.rawBody with the app secret, against the header after "sha256=". */
export function n8nAccepts (received: Received, appSecret: string): boolean {
  const header = received.headers['x-hub-signature-256']
  if (typeof header !== 'string') return false
  // signature(): "sha256=" + the hex HMAC-SHA256 of req.rawBody keyed with the clientSecret, as n8n computes it
  return header === signature(received.raw, appSecret) && received.headers['content-type'] === 'application/json' && JSON.parse(received.raw.toString('utf8')).object === 'whatsapp_business_account'
}

export const relayId = (received: Received): string => String(received.headers['x-outbound-relay-delivery'])
