import { clearRecords, createContext } from './context.js'
import { buildEmulatorApp } from './server.js'
import type { Emulator, EmulatorOptions } from './types.js'
import { injectFlowCompletion, injectInbound, sendMessagingLimitUpdate, sendQualityUpdate, sendTemplateQualityUpdate, sendTemplateStatusUpdate, sendUserPreference, sendWebhook } from './webhook-api.js'

export async function startEmulator (options: EmulatorOptions = {}): Promise<Emulator> {
  const context = createContext(options)
  const app = buildEmulatorApp(context, options.logger ?? false)
  const address = await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' })
  return {
    url: `${address}${context.basePath}`,
    appSecret: context.appSecret,
    requests: context.requests,
    sentMessages: context.sentMessages,
    readReceipts: context.readReceipts,
    stats: context.stats,
    webhookDeliveries: context.webhookDeliveries,
    addAccount: account => context.accounts.add(account),
    setTemplates: (wabaId, templates) => context.accounts.setTemplates(wabaId, templates),
    setFaults: (scope, faults) => context.faults.set(scope, faults),
    clearFaults: () => context.faults.clear(),
    setStatusOptions: (scope, statusOptions) => context.statusOptions.set(scope, statusOptions),
    injectInbound: message => injectInbound(context, message),
    injectFlowCompletion: completion => injectFlowCompletion(context, completion),
    knowInbound: (phoneNumberId, wamids) => { for (const wamid of wamids) context.inboundWamids.set(wamid, phoneNumberId) },
    addMedia: (wabaId, media) => context.media.add({ wabaId, ...media }).id,
    media: id => context.media.get(id),
    expireMedia: id => { context.media.delete(id) },
    failMediaDownloads: times => context.media.failDownloads(times),
    corruptMediaDownloads: times => context.media.corruptDownloads(times),
    sendTemplateStatusUpdate: update => sendTemplateStatusUpdate(context, update),
    sendMessagingLimitUpdate: update => sendMessagingLimitUpdate(context, update),
    sendUserPreference: update => sendUserPreference(context, update),
    setQualityRating: (phoneNumberId, rating) => { context.accounts.number(phoneNumberId).number.qualityRating = rating },
    sendQualityUpdate: update => sendQualityUpdate(context, update),
    sendTemplateQualityUpdate: update => sendTemplateQualityUpdate(context, update),
    sendWebhook: (wabaId, body, webhookOptions) => sendWebhook(context, wabaId, body, webhookOptions),
    callbackFor: wabaId => context.accounts.node(wabaId)?.waba.callback,
    idle: () => context.webhooks.idle(),
    reset () {
      context.webhooks.cancel()
      context.faults.clear()
      context.statusOptions.clear()
      context.limits.reset()
      context.media.clear()
      clearRecords(context)
    },
    async close () {
      for (const timer of context.reviews.timers) clearTimeout(timer)
      context.webhooks.cancel()
      await app.close()
    }
  }
}
