import { RELAY_FIELDS, type relayDeliveries, type relayTargets } from '../../db/schema.js'

type RelayTarget = typeof relayTargets.$inferSelect
type RelayDelivery = typeof relayDeliveries.$inferSelect

/** R of CONTRACT.md 18, without its secret (shown once, by whoever added it); defaults printed as what they mean. */
export function publicRelay (relay: RelayTarget) {
  return {
    id: relay.id,
    url: relay.url,
    fields: relay.fields ?? [...RELAY_FIELDS],
    phone_number_ids: relay.phoneNumberIds,
    signing: relay.signing,
    created_at: relay.createdAt.toISOString()
  }
}

export function publicRelayDelivery (delivery: RelayDelivery) {
  return {
    id: delivery.id,
    relay_id: delivery.relayId,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_status: delivery.lastResponseStatus,
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt?.toISOString() ?? null : null,
    created_at: delivery.createdAt.toISOString()
  }
}
