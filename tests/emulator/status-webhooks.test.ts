import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, NUMBER, send, startCallback, statusesOf, subscribe, text, WABA, type CallbackServer } from './helpers.js'

describe('emulator: status webhooks', () => {
  let emulator: Emulator
  let callback: CallbackServer
  beforeAll(async () => {
    emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 10, read: 20 }, webhookRetries: [20, 40] })
    callback = await startCallback(emulator.appSecret)
  })
  beforeEach(async () => {
    emulator.reset()
    callback.received.length = 0
    callback.answer = () => 200
    await subscribe(emulator, callback.url)
  })
  afterAll(async () => {
    await emulator.close()
    await callback.close()
  })

  it('posts signed sent, delivered and read statuses in the upstream envelope', async () => {
    const response = await send(emulator, { ...text('+15554000001'), biz_opaque_callback_data: 'log-42' })
    const wamid = response.body.messages[0].id
    await emulator.idle()
    expect(callback.received).toHaveLength(3)
    for (const hook of callback.received) {
      expect(hook.signatureValid).toBe(true)
      expect(hook.headers['content-type']).toBe('application/json')
      expect(hook.body).toMatchObject({
        object: 'whatsapp_business_account',
        entry: [{ id: WABA, changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: NUMBER } } }] }]
      })
    }
    const statuses = statusesOf(callback)
    expect(statuses.map(s => s.status)).toEqual(['sent', 'delivered', 'read'])
    expect(statuses[0]).toEqual({
      id: wamid,
      status: 'sent',
      timestamp: expect.stringMatching(/^\d{10}$/),
      recipient_id: '15554000001',
      biz_opaque_callback_data: 'log-42',
      pricing: { billable: false, pricing_model: 'PMP', type: 'free_customer_service', category: 'service' }
    })
    expect(statuses[1].pricing).toBeDefined()
    expect(statuses[2].pricing).toBeUndefined()
    const times = statuses.map(s => Number(s.timestamp))
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(1)
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(1)
    expect(emulator.webhookDeliveries.map(d => d.status)).toEqual([200, 200, 200])
  })

  it('prices template messages by their category', async () => {
    await send(emulator, { messaging_product: 'whatsapp', to: '15554000002', type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } })
    await emulator.idle()
    expect(statusesOf(callback)[0].pricing).toEqual({ billable: true, pricing_model: 'PMP', type: 'regular', category: 'utility' })
  })

  it('reorders and duplicates deliveries on request, timestamps still telling the true order', async () => {
    emulator.setStatusOptions('global', { reorder: true, duplicate: true })
    await send(emulator, text('15554000003'))
    await emulator.idle()
    const statuses = statusesOf(callback)
    expect(statuses.map(s => s.status)).toEqual(['read', 'read', 'delivered', 'delivered', 'sent', 'sent'])
    const byTime = [...statuses].sort((a, b) => Number(a.timestamp) - Number(b.timestamp)).map(s => s.status)
    expect(byTime).toEqual(['sent', 'sent', 'delivered', 'delivered', 'read', 'read'])
  })

  it('fails a message asynchronously with failWith, per recipient over global', async () => {
    emulator.setStatusOptions('global', { statuses: ['sent'] })
    emulator.setStatusOptions({ recipient: '+15554000004' }, { failWith: { code: 131047 } })
    await send(emulator, text('15554000004'))
    await send(emulator, text('15554000005'))
    await emulator.idle()
    const failing = statusesOf(callback).filter(s => s.recipient_id === '15554000004')
    expect(failing.map(s => s.status)).toEqual(['sent', 'failed'])
    expect(failing[1].errors).toEqual([{
      code: 131047,
      title: 'Re-engagement message',
      message: 'Re-engagement message',
      error_data: { details: expect.stringContaining('24 hours') },
      href: expect.stringContaining('error-codes')
    }])
    expect(statusesOf(callback).filter(s => s.recipient_id === '15554000005').map(s => s.status)).toEqual(['sent'])
  })

  it('retries a delivery the callback refuses and records every attempt', async () => {
    callback.answer = index => (index < 2 ? 500 : 200)
    emulator.setStatusOptions('global', { statuses: ['sent', 'delivered'] })
    await send(emulator, text('15554000006'))
    await emulator.idle()
    expect(emulator.webhookDeliveries.map(d => d.status)).toEqual([500, 500, 200, 200])
    expect(statusesOf(callback).map(s => s.status)).toEqual(['sent', 'sent', 'sent', 'delivered'])
    expect(emulator.webhookDeliveries[0]).toMatchObject({ url: callback.url, body: { object: 'whatsapp_business_account' }, at: expect.any(Number) })
  })

  it('gives up after the configured retries on an unreachable callback', async () => {
    const closed = await startCallback(emulator.appSecret)
    await subscribe(emulator, closed.url)
    await closed.close()
    emulator.setStatusOptions('global', { statuses: ['sent'] })
    await send(emulator, text('15554000007'))
    await emulator.idle()
    expect(emulator.webhookDeliveries.map(d => d.status)).toEqual(['error', 'error', 'error'])
  })

  it('sends nothing without a registered callback', async () => {
    await graph(emulator, 'POST', `/${WABA}/subscribed_apps`)
    await send(emulator, text('15554000008'))
    await emulator.idle()
    expect(callback.received).toHaveLength(0)
    expect(emulator.webhookDeliveries).toHaveLength(0)
    await expect(emulator.sendWebhook(WABA, {})).rejects.toThrow(/no webhook callback/)
  })
})
