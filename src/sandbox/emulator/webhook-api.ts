import type { EmulatorContext } from './context.js'
import { digitsOf } from './faults.js'
import { defaultInboundContent, envelope, inboundValue, templateStatusValue } from './notifications.js'
import type { DeliveryStatus, InboundMessage, SendWebhookOptions, TemplateStatusUpdate } from './types.js'
import { newWamid } from './wamid.js'

export async function injectInbound (context: EmulatorContext, message: InboundMessage): Promise<{ wamid: string, status: DeliveryStatus }> {
  const { waba, number } = context.accounts.number(message.phoneNumberId)
  const from = digitsOf(message.from)
  const type = message.type ?? 'text'
  const wamid = message.wamid ?? newWamid(from)
  const value = inboundValue(number, {
    from,
    wamid,
    type,
    content: message.payload ?? defaultInboundContent(type),
    profileName: message.profileName ?? 'Emulated Customer',
    timestamp: Math.floor(Date.now() / 1000)
  })
  const status = await sendWebhook(context, waba.account.wabaId, envelope(waba.account.wabaId, 'messages', value))
  return { wamid, status }
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
