import { describe, expect, it } from 'vitest'
import { sendTestEvent } from '../../src/events/test-event.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { subscribe } from './helpers.js'
import { startReceiver } from './receiver.js'

/** Each attempt of a delivery is kept (the dashboard's delivery page lists them): its answer and what followed. */
describe('a delivery\'s attempts, one by one', () => {
  const ctx = useGateway({ plan: null, env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100' } })

  it('keeps every attempt with its answer and outcome; a replay goes on counting', async () => {
    const { app } = ctx.gateway
    const workspaceId = (await app.workspaces.create('attempts', 'growth')).id
    // 503, then a dropped connection (the last of 1 + 1 attempts: failed), then after the replay 200
    const target = await startReceiver({ plan: [503, 'reset'] })
    try {
      const { id } = await subscribe(app, workspaceId, target.url)
      const deliveryId = await sendTestEvent(app, workspaceId, id)
      await waitFor(async () => (await app.webhooks.delivery(deliveryId))?.status === 'failed', { what: 'the delivery to give up', timeoutMs: 15_000 })
      const failed = await app.webhooks.attempts(deliveryId)
      expect(failed.map(({ number, responseStatus, outcome }) => ({ number, responseStatus, outcome }))).toEqual([
        { number: 1, responseStatus: 503, outcome: 'pending' },
        { number: 2, responseStatus: null, outcome: 'failed' }
      ])
      expect(failed[0].error).toBe('HTTP 503')
      expect(failed[1].error).toMatch(/\S/)
      expect(failed[1].at.getTime()).toBeGreaterThanOrEqual(failed[0].at.getTime())

      expect(await app.webhooks.replay({ deliveryId, workspaceId })).toBe(1)
      await waitFor(async () => (await app.webhooks.delivery(deliveryId))?.status === 'delivered', { what: 'the replay delivered', timeoutMs: 15_000 })
      const all = await app.webhooks.attempts(deliveryId)
      expect(all.map(({ number, responseStatus, error, outcome }) => ({ number, responseStatus, error, outcome })).at(-1))
        .toEqual({ number: 3, responseStatus: 200, error: null, outcome: 'delivered' })
      expect(all).toHaveLength((await app.webhooks.delivery(deliveryId))!.attempts)
    } finally {
      await target.close()
    }
  })
})
