import { describe, expect, it } from 'vitest'
import { publicRelayDelivery } from '../../src/resources/relay.js'
import type { RelayDelivery } from '../../src/store/relays.js'

/** CONTRACT.md 18: a relay delivery as `relays deliveries` prints it; `next_attempt_at` null once delivered or failed. */
describe('relay deliveries as listed', () => {
  const base: RelayDelivery = {
    id: 'rld_1', relayId: 'rly_1', workspaceId: 'ws_1', inboxDeliveryId: 7, body: Buffer.from('{}'), status: 'pending', attempts: 1,
    lastResponseStatus: 503, lastError: 'HTTP 503', nextAttemptAt: new Date('2026-12-02T10:00:05Z'), createdAt: new Date('2026-12-02T10:00:00Z'), deliveredAt: null
  }

  it('names exactly the contract\'s fields, the next attempt while pending only', () => {
    expect(publicRelayDelivery(base)).toEqual({ id: 'rld_1', relay_id: 'rly_1', status: 'pending', attempts: 1, last_response_status: 503, next_attempt_at: '2026-12-02T10:00:05.000Z', created_at: '2026-12-02T10:00:00.000Z' })
    for (const status of ['delivered', 'failed'] as const) {
      expect(publicRelayDelivery({ ...base, status, nextAttemptAt: new Date() }).next_attempt_at).toBeNull()
    }
  })
})
