import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { send as sendMessage } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { inboxDrained } from './helpers.js'

describe('delivery tracking from the emulator\'s signed status webhooks', () => {
  const ctx = useGateway()
  const account = defaultAccount()

  async function send (to: string): Promise<{ id: string, wamid: string }> {
    const response = await sendMessage(ctx.gateway, { to, body: 'status test' }, { authorization: ctx.workspace.authorization })
    expect(response.statusCode).toBe(200)
    const { wamid } = response.json()
    const [record] = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 100 })).filter(message => message.wamid === wamid)
    return { id: record.id, wamid }
  }

  async function settle (id: string, status: string) {
    await waitFor(async () => (await ctx.gateway.app.messages.get(id))?.status === status, { what: `status ${status}` })
    await ctx.gateway.emulator.idle()
    return (await ctx.gateway.app.messages.get(id))!
  }

  const historyOf = async (id: string) => (await ctx.gateway.app.statusEvents.history(id)).map(event => event.status)

  it('moves a message sent → delivered → read and keeps each event', async () => {
    const { id } = await send('15551110001')
    const record = await settle(id, 'read')
    expect(record.pricingCategory).toBe('service')
    expect(await historyOf(id)).toEqual(['sent', 'delivered', 'read'])
  })

  it('ends in read with each event recorded once when deliveries come reordered and duplicated', async () => {
    ctx.gateway.emulator.setStatusOptions({ recipient: '15551110002' }, { reorder: true, duplicate: true })
    const { id } = await send('15551110002')
    await settle(id, 'read')
    const deliveries = ctx.gateway.emulator.webhookDeliveries.filter(delivery => JSON.stringify(delivery.body).includes('15551110002'))
    expect(deliveries.length).toBe(6)
    await inboxDrained(ctx.gateway.app)
    expect((await ctx.gateway.app.messages.get(id))!.status).toBe('read')
    expect((await historyOf(id)).sort()).toEqual(['delivered', 'read', 'sent'])
  })

  it('ends failed with the upstream error when a failed status follows sent', async () => {
    ctx.gateway.emulator.setStatusOptions({ recipient: '15551110003' }, { statuses: ['sent', 'failed'], failWith: { code: 131047 } })
    const { id } = await send('15551110003')
    const record = await settle(id, 'failed')
    expect(record.errorCode).toBe('131047')
    expect(record.errorText).toMatch(/re-engagement/i)
    expect(await historyOf(id)).toEqual(['sent', 'failed'])
  })

  it('does not let a late failed status undo a delivery', async () => {
    ctx.gateway.emulator.setStatusOptions({ recipient: '15551110004' }, { statuses: ['sent', 'delivered'] })
    const { id, wamid } = await send('15551110004')
    await settle(id, 'delivered')
    const failed = statusBody(wamid, 'failed', 1_900_000_000, { errors: [{ code: 131026, title: 'Message undeliverable' }] })
    expect(await ctx.gateway.emulator.sendWebhook(account.wabaId, failed)).toBe(200)
    await waitFor(async () => (await historyOf(id)).length === 3, { what: 'the failed event in the history' })
    const record = (await ctx.gateway.app.messages.get(id))!
    expect(record.status).toBe('delivered')
    expect(await historyOf(id)).toEqual(['sent', 'delivered', 'failed'])
  })

  it('loses nothing to 50 concurrent deliveries for one message', async () => {
    ctx.gateway.emulator.setStatusOptions({ recipient: '15551110005' }, { statuses: [] })
    const { id, wamid } = await send('15551110005')
    const statuses = ['sent', 'delivered', 'read'] as const
    const bodies = Array.from({ length: 50 }, (_, index) => statusBody(wamid, statuses[index % 3], 1_800_000_000 + index))
    const answers = await Promise.all(bodies.map(body => ctx.gateway.emulator.sendWebhook(account.wabaId, body)))
    expect(answers.every(status => status === 200)).toBe(true)
    await waitFor(async () => (await historyOf(id)).length >= 50, { what: '50 events in the history' })
    expect((await ctx.gateway.app.messages.get(id))!.status).toBe('read')
    expect(await historyOf(id)).toHaveLength(50)
  })

  it('matches a status that outran the wamid by the record id it carries', async () => {
    ctx.gateway.emulator.setStatusOptions({ recipient: '15551110006' }, { statuses: [] })
    const { id, wamid } = await send('15551110006')
    // a record still waiting for its send answer: the upstream's status names it by biz_opaque_callback_data
    const pending = (await ctx.gateway.app.messages.create({ id: `${id}-early`, workspaceId: ctx.workspace.workspaceId, apiKeyId: null, phoneNumberId: account.phoneNumbers[0].id, recipient: '15551110006', type: 'text', payload: {} })).record
    const early = statusBody(`${wamid}-early`, 'delivered', 1_850_000_000, { biz_opaque_callback_data: pending.id })
    expect(await ctx.gateway.emulator.sendWebhook(account.wabaId, early)).toBe(200)
    const record = await waitFor(async () => { const found = await ctx.gateway.app.messages.get(pending.id); return found?.status === 'delivered' && found }, { what: 'the early status applied' })
    expect(record).toMatchObject({ status: 'delivered', wamid: `${wamid}-early` })
  })

  function statusBody (wamid: string, status: string, timestamp: number, extra: Record<string, unknown> = {}) {
    return {
      object: 'whatsapp_business_account',
      entry: [{ id: account.wabaId, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: account.phoneNumbers[0].id }, statuses: [{ id: wamid, status, timestamp: String(timestamp), recipient_id: '15551110000', ...extra }] } }] }]
    }
  }
})
