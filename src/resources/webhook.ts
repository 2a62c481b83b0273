import type { webhookDeliveries, webhookEndpoints } from '../../db/schema.js'

type WebhookEndpoint = typeof webhookEndpoints.$inferSelect
type WebhookDelivery = typeof webhookDeliveries.$inferSelect

export function publicEndpoint (endpoint: WebhookEndpoint) {
  return { id: endpoint.id, url: endpoint.url, events: endpoint.events, created_at: endpoint.createdAt.toISOString() }
}

export function publicDelivery (delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    type: delivery.type,
    webhook_id: delivery.webhookId,
    status: delivery.status,
    attempts: delivery.attempts,
    last_response_status: delivery.lastResponseStatus,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString()
  }
}
