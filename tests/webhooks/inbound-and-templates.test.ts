import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { waitFor } from '../helpers/wait.js'
import { inboxDrained } from './helpers.js'
import { useGateway } from '../helpers/use-gateway.js'

describe('webhooks: signatures, inbound messages, template and number updates', () => {
  const ctx = useGateway()
  const account = defaultAccount()
  const numberId = account.phoneNumbers[0].id

  it('refuses a forged or missing signature with 401 and stores nothing', async () => {
    const { emulator, app } = ctx.gateway
    const body = { object: 'whatsapp_business_account', entry: [{ id: account.wabaId, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: numberId }, messages: [{ from: '15551230000', id: 'wamid.forged', timestamp: '1750000000', type: 'text', text: { body: 'x' } }] } }] }] }
    expect(await emulator.sendWebhook(account.wabaId, body, { signature: 'sha256=' + '0'.repeat(64) })).toBe(401)
    expect(await emulator.sendWebhook(account.wabaId, body, { signature: null })).toBe(401)
    expect(await app.inbound.list(ctx.workspace.workspaceId)).toEqual([])
  })

  it('stores an inbound message once, however often it is delivered', async () => {
    const { emulator, app } = ctx.gateway
    const { wamid, status } = await emulator.injectInbound({ phoneNumberId: numberId, from: '15557654321', type: 'text', payload: { body: 'Hi there' } })
    expect(status).toBe(200)
    const repeat = { object: 'whatsapp_business_account', entry: [{ id: account.wabaId, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: numberId }, messages: [{ from: '15557654321', id: wamid, timestamp: '1750000000', type: 'text', text: { body: 'Hi there' } }] } }] }] }
    expect(await emulator.sendWebhook(account.wabaId, repeat)).toBe(200)
    await inboxDrained(app)
    const inbound = await app.inbound.list(ctx.workspace.workspaceId)
    expect(inbound).toHaveLength(1)
    expect(inbound[0]).toMatchObject({ wamid, from: '15557654321', type: 'text', phoneNumberId: numberId, payload: { text: { body: 'Hi there' } } })
  })

  it('stores inbound messages of other types', async () => {
    const { emulator, app } = ctx.gateway
    await emulator.injectInbound({ phoneNumberId: numberId, from: '15557654322', type: 'image' })
    await emulator.injectInbound({ phoneNumberId: numberId, from: '15557654322', type: 'interactive', payload: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } } })
    const types = await waitFor(async () => {
      const stored = (await app.inbound.list(ctx.workspace.workspaceId)).map(message => message.type)
      return stored.includes('image') && stored.includes('interactive') && stored
    }, { what: 'both inbound messages stored' })
    expect(types).toEqual(expect.arrayContaining(['image', 'interactive']))
  })

  it('updates a template\'s stored status from a message_template_status_update routed by WABA id', async () => {
    const { emulator, app } = ctx.gateway
    const before = (await app.templates.byName(ctx.workspace.workspaceId, 'hello_world'))[0]
    expect(before.status).toBe('APPROVED')
    expect(await emulator.sendTemplateStatusUpdate({ wabaId: account.wabaId, name: 'hello_world', language: 'en_US', event: 'REJECTED', reason: 'INCORRECT_CATEGORY' })).toBe(200)
    await waitFor(async () => (await app.templates.byName(ctx.workspace.workspaceId, 'hello_world'))[0].status === 'REJECTED', { what: 'the template REJECTED' })

    const refused = await app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization }, payload: { to: '15551234567', type: 'template', template: 'hello_world' } })
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ ok: false, code: 'template_not_approved', field: 'template' })
  })

  it('answers 200 to a valid delivery naming an unknown message, and keeps the event aside', async () => {
    const { emulator, app } = ctx.gateway
    const body = { object: 'whatsapp_business_account', entry: [{ id: account.wabaId, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: numberId }, statuses: [{ id: 'wamid.unknown-to-us', status: 'delivered', timestamp: '1750000001', recipient_id: '15550001111' }] } }] }] }
    expect(await emulator.sendWebhook(account.wabaId, body)).toBe(200)
    const kept = await waitFor(async () => { const events = await app.statusEvents.byWamid('wamid.unknown-to-us'); return events.length > 0 && events }, { what: 'the event kept' })
    expect(kept).toHaveLength(1)
    expect(kept[0]).toMatchObject({ messageId: null, status: 'delivered' })
  })

  it('refuses a body that is not JSON (but correctly signed) with 422', async () => {
    const { emulator } = ctx.gateway
    expect(await emulator.sendWebhook(account.wabaId, 'not json at all')).toBe(422)
  })
})

describe('webhooks without APP_SECRET', () => {
  const ctx = useGateway({ env: { APP_SECRET: '' }, plan: null })

  it('refuses every POST (fail closed)', async () => {
    const response = await ctx.gateway.app.inject({ method: 'POST', url: '/webhooks/whatsapp', payload: { object: 'whatsapp_business_account', entry: [] } })
    expect(response.statusCode).toBe(401)
    expect(response.json()).toMatchObject({ ok: false, code: 'unauthorized', error: expect.stringMatching(/APP_SECRET/) })
  })
})
