import fp from 'fastify-plugin'
import { faultCode } from '../src/faults/classify.js'
import { createSendService, type SendService } from '../src/send/service.js'
import type { GiveBack } from '../src/send/reservation.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The one way a message is sent: the API, the dashboard and the queue's drain (src/send/service.ts). */
    send: SendService
  }
}

/** The send service, on the audience rules, the store, the queue's hand-over, media uploads and dispatch. */
export default fp(async function send (app) {
  // the slot is free again: the oldest send the limit holds may take it now (best effort: a slot
  // not given back only costs a slot until its 24 h end)
  const giveBack: GiveBack = async slot => {
    try {
      await app.messagingLimit.giveBack(slot)
      await app.holds.releaseLimit(slot.wabaId, 1)
    } catch (error) {
      app.log.warn({ code: faultCode(error) }, 'could not give back the messaging-limit slot of a send that did not go out')
    }
  }
  app.decorate('send', createSendService({
    decide: app.audience.decide,
    checkServiceWindow: app.checkServiceWindow,
    giveBack,
    templatesNamed: app.audience.templatesNamed,
    currentUserId: async (workspaceId, recipient) => await app.userIds.current(workspaceId, recipient),
    messages: app.messages,
    keys: app.idempotencyKeys,
    // registered after this plugin (send-queue drains through it, media is a route gate): looked up when a send needs them
    handOver: async (message, key) => await app.sendQueue.handOver(message, key),
    upload: async (request, pending, file) => await app.mediaFiles.attach(request, pending, file),
    withdrawals: app.withdrawals,
    dispatch: app.dispatch,
    dispatcherId: app.dispatcherId,
    // registered after this plugin: a message sent to a person may mark their latest message read (CONTRACT.md 19)
    sent: record => { void app.readPolicy.sent(record) },
    idempotencyTtlMs: app.config.IDEMPOTENCY_TTL_MS,
    deadlineMs: app.config.DISPATCH_DEADLINE_MS
  }))
}, { name: 'send', dependencies: ['db', 'dispatch', 'audience', 'service-window'] })
