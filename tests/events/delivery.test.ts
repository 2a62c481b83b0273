import { sql } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { sendTestEvent } from '../../src/events/test-event.js'
import { subscribe } from './helpers.js'
import { startReceiver, type Receiver } from './receiver.js'

const SCHEDULE = [200, 400, 600]

describe('outgoing webhooks: signing, retries on the schedule, failure and replay', () => {
  let workspaceId: string
  const receivers: Receiver[] = []
  // registered before useGateway, so that it runs after the gateway closed
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close()
  })
  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(',') },
    plan: null,
    setup: async gateway => { workspaceId = (await gateway.app.workspaces.create('events', 'growth')).id }
  })

  async function receiver (options: Parameters<typeof startReceiver>[0] = {}) {
    const started = await startReceiver(options)
    receivers.push(started)
    return started
  }

  const delivery = async (id: string) => (await ctx.gateway.app.webhooks.delivery(id))!

  it('signs a delivery so that the standardwebhooks package verifies it', async () => {
    const target = await receiver()
    const { id, secret } = await subscribe(ctx.gateway.app, workspaceId, target.url)
    const deliveryId = await sendTestEvent(ctx.gateway.app, workspaceId, id)
    await waitFor(async () => (await delivery(deliveryId)).status === 'delivered', { what: 'delivered' })
    const [request] = target.received
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string, data: unknown }
    expect(verified.type).toBe('webhook.test')
    expect(request.headers['content-type']).toBe('application/json')
    expect(request.headers['webhook-id']).toBe((await delivery(deliveryId)).webhookId)
    expect(() => new Webhook(secret).verify(request.body + ' ', request.headers as Record<string, string>)).toThrow()
    expect(await delivery(deliveryId)).toMatchObject({ attempts: 1, lastResponseStatus: 200 })
  })

  it('retries through 5xx and a dropped connection with the same webhook-id on the schedule, then delivers', async () => {
    const target = await receiver({ plan: [500, 'reset', 503] })
    const { id, secret } = await subscribe(ctx.gateway.app, workspaceId, target.url)
    const deliveryId = await sendTestEvent(ctx.gateway.app, workspaceId, id)
    await waitFor(async () => (await delivery(deliveryId)).status === 'delivered', { what: 'delivered after retries', timeoutMs: 20_000 })
    expect(target.received).toHaveLength(4)
    expect(new Set(target.received.map(request => request.headers['webhook-id'])).size).toBe(1)
    expect(new Set(target.received.map(request => request.body)).size).toBe(1)
    for (const request of target.received) new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
    // each delay of the schedule counts from the previous failed attempt
    const gaps = target.received.slice(1).map((request, index) => request.at - target.received[index].at)
    gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(SCHEDULE[index] - 20))
    expect(await delivery(deliveryId)).toMatchObject({ attempts: 4, lastResponseStatus: 200, status: 'delivered' })
  })

  it('ends failed after 1 + schedule attempts against a refused connection, then a replay delivers the same event', async () => {
    const port = await freePort()
    const { id } = await subscribe(ctx.gateway.app, workspaceId, `http://127.0.0.1:${port}/hook`)
    const deliveryId = await sendTestEvent(ctx.gateway.app, workspaceId, id)
    await waitFor(async () => (await delivery(deliveryId)).status === 'failed', { what: 'failed', timeoutMs: 20_000 })
    const failed = await delivery(deliveryId)
    expect(failed).toMatchObject({ attempts: 1 + SCHEDULE.length, lastResponseStatus: null, nextAttemptAt: null })
    expect(failed.lastError).toMatch(/ECONNREFUSED/)

    // the endpoint comes up on that port: a replay sends the same webhook-id and the same body
    const target = await startReceiver()
    receivers.push(target)
    const moved = await ctx.gateway.app.webhooks.endpoint(id)
    await ctx.gateway.app.database.db.execute(sql`update webhook_endpoints set url = ${target.url} where id = ${moved!.id}`)
    expect(await ctx.gateway.app.webhooks.replay({ deliveryId })).toBe(1)
    await waitFor(async () => (await delivery(deliveryId)).status === 'delivered', { what: 'replayed' })
    expect(target.received[0].headers['webhook-id']).toBe(failed.webhookId)
    expect(target.received[0].body).toBe(failed.body)
    expect(await ctx.gateway.app.webhooks.replay({ deliveryId: 'whd_unknown' })).toBe(0)
  })

  it('counts a timeout as a failed attempt (10 s) and retries it', async () => {
    const target = await receiver({ plan: ['hang'] })
    const { id } = await subscribe(ctx.gateway.app, workspaceId, target.url)
    const deliveryId = await sendTestEvent(ctx.gateway.app, workspaceId, id)
    await waitFor(async () => (await delivery(deliveryId)).status === 'delivered', { what: 'delivered after a timeout', timeoutMs: 25_000 })
    expect(target.received).toHaveLength(2)
    expect(target.received[1].at - target.received[0].at).toBeGreaterThanOrEqual(10_000)
    expect((await delivery(deliveryId)).attempts).toBe(2)
  }, 30_000)

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const target = await receiver({ plan: [302, 302, 302, 302] })
    const { id } = await subscribe(ctx.gateway.app, workspaceId, target.url)
    const deliveryId = await sendTestEvent(ctx.gateway.app, workspaceId, id)
    await waitFor(async () => (await delivery(deliveryId)).status === 'failed', { what: 'failed', timeoutMs: 20_000 })
    expect(await delivery(deliveryId)).toMatchObject({ lastResponseStatus: 302, attempts: 4 })
    expect(target.received).toHaveLength(4)
  })
})
