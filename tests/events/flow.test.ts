import { afterAll, describe, expect, it } from 'vitest'
import { syncAllTemplates } from '../../src/connections/refresh.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { subscribe } from './helpers.js'
import { startReceiver, type Receiver } from './receiver.js'

describe('events of a send → status webhooks → inbound flow, with their data', () => {
  let receiver: Receiver
  const account = defaultAccount()
  const numberId = account.phoneNumbers[0].id

  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true' },
    setup: async (gateway, workspace) => {
      receiver = await startReceiver()
      await subscribe(gateway.app, workspace!.workspaceId, receiver.url)
    }
  })
  afterAll(async () => { await receiver?.close() })

  const eventsFor = (id: string) => receiver.events().filter(event => event.data.id === id)

  it('emits message.sent, .delivered and .read once each, with the message as data', async () => {
    const response = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: '15551119001', body: 'events' } })
    expect(response.statusCode).toBe(200)
    const { wamid } = response.json()
    const [record] = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId)).filter(message => message.wamid === wamid)
    await waitFor(async () => eventsFor(record.id).length >= 3, { what: 'three events' })
    await ctx.gateway.emulator.idle()
    await waitFor(async () => (await ctx.gateway.app.webhooks.deliveries(ctx.workspace.workspaceId, { status: 'pending' })).length === 0, { what: 'outbox drained' })
    const events = eventsFor(record.id)
    expect(events.map(event => event.type).sort()).toEqual(['message.delivered', 'message.read', 'message.sent'])
    const read = events.find(event => event.type === 'message.read')!
    expect(read.data).toEqual({
      id: record.id,
      wamid,
      to: '15551119001',
      recipient_user_id: null,
      from_phone_number_id: numberId,
      type: 'text',
      status: 'read',
      held_reason: null,
      error: null,
      attempts: 1,
      client_reference: null,
      // the status webhooks' pricing, kept on the record (CONTRACT.md 14)
      pricing: { billable: false, category: 'service', pricing_model: 'PMP', type: 'free_customer_service' },
      content_purged_at: null,
      created_at: record.createdAt.toISOString(),
      updated_at: expect.any(String)
    })
    expect(events.find(event => event.type === 'message.sent')!.data.status).toBe('sent')
    expect(Date.parse(read.timestamp)).not.toBeNaN()
  })

  it('emits message.failed with the upstream error for a refused send and for a failed status', async () => {
    const refused = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: '15550000001', body: 'x' } })
    expect(refused.statusCode).toBe(502)
    const accepted = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: '15550000003', body: 'x' } })
    expect(accepted.statusCode).toBe(200)
    await waitFor(async () => receiver.events().filter(event => event.type === 'message.failed').length >= 2, { what: 'two failed events' })
    const failed = receiver.events().filter(event => event.type === 'message.failed').map(event => event.data)
    expect(failed).toEqual(expect.arrayContaining([
      expect.objectContaining({ to: '15550000001', status: 'failed', error: expect.objectContaining({ code: '131026' }) }),
      expect.objectContaining({ to: '15550000003', status: 'failed', error: expect.objectContaining({ code: '131047' }) })
    ]))
  })

  it('emits message.received with the inbound message and its content, once however often it is delivered', async () => {
    const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: numberId, from: '15557650001', type: 'text', payload: { body: 'Hello back' } })
    await waitFor(async () => receiver.events().some(event => event.type === 'message.received' && event.data.wamid === wamid), { what: 'received event' })
    const [stored] = (await ctx.gateway.app.inbound.list(ctx.workspace.workspaceId)).filter(message => message.wamid === wamid)
    const event = receiver.events().find(event => event.type === 'message.received' && event.data.wamid === wamid)!
    expect(event.data).toMatchObject({ id: stored.id, wamid, from: '15557650001', phone_number_id: numberId, type: 'text', received_at: stored.receivedAt.toISOString(), content: { text: { body: 'Hello back' } } })
    expect(event.data).toHaveProperty('from_user_id')
  })

  it('emits template.updated from a template webhook, and nothing from a template sync', async () => {
    expect(await ctx.gateway.emulator.sendTemplateStatusUpdate({ wabaId: account.wabaId, name: 'hello_world', language: 'en_US', event: 'PAUSED' })).toBe(200)
    await waitFor(async () => receiver.events().some(event => event.type === 'template.updated'), { what: 'template event' })
    expect(receiver.events().find(event => event.type === 'template.updated')!.data).toEqual({ name: 'hello_world', language: 'en_US', status: 'PAUSED', category: expect.any(String) })
    await syncAllTemplates(ctx.gateway.app.connectDeps, error => { throw error })
    const deliveries = await ctx.gateway.app.webhooks.deliveries(ctx.workspace.workspaceId, { limit: 100 })
    expect(deliveries.filter(delivery => delivery.type === 'template.updated')).toHaveLength(1)
    expect(receiver.events().filter(event => event.type === 'template.updated')).toHaveLength(1)
  })

  it('sends only the subscribed types to an endpoint that chose some', async () => {
    const only = await startReceiver()
    try {
      await subscribe(ctx.gateway.app, ctx.workspace.workspaceId, only.url, ['message.received'])
      await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: '15551119002', body: 'x' } })
      const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: numberId, from: '15557650002', type: 'text', payload: { body: 'x' } })
      await waitFor(async () => only.events().some(event => event.data.wamid === wamid), { what: 'received event' })
      await ctx.gateway.emulator.idle()
      await waitFor(async () => (await ctx.gateway.app.webhooks.deliveries(ctx.workspace.workspaceId, { status: 'pending' })).length === 0, { what: 'outbox drained' })
      expect(new Set(only.events().map(event => event.type))).toEqual(new Set(['message.received']))
    } finally {
      await only.close()
    }
  })
})
