import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { signature } from '../helpers/webhook.js'
import { graph, NUMBER, send, startCallback, subscribe, WABA, type CallbackServer } from './helpers.js'

describe('emulator: inbound, template and arbitrary webhooks', () => {
  let emulator: Emulator
  let callback: CallbackServer
  beforeAll(async () => {
    emulator = await startEmulator({ webhookRetries: [20] })
    callback = await startCallback(emulator.appSecret)
    await subscribe(emulator, callback.url)
  })
  beforeEach(() => {
    emulator.reset()
    callback.received.length = 0
    callback.answer = index => (callback.received[index].signatureValid ? 200 : 401)
  })
  afterAll(async () => {
    await emulator.close()
    await callback.close()
  })

  it('injects an inbound text message', async () => {
    const { wamid, status } = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '+15556000001' })
    expect(status).toBe(200)
    expect(wamid).toMatch(/^wamid\./)
    const hook = callback.received[0]
    expect(hook.signatureValid).toBe(true)
    expect(hook.body.entry[0].id).toBe(WABA)
    const value = hook.body.entry[0].changes[0].value
    expect(value.metadata).toEqual({ display_phone_number: '15550783881', phone_number_id: NUMBER })
    expect(value.contacts).toEqual([{ profile: { name: 'Emulated Customer' }, wa_id: '15556000001' }])
    expect(value.messages).toEqual([{
      from: '15556000001', id: wamid, timestamp: expect.stringMatching(/^\d+$/), type: 'text', text: { body: 'Hello from the emulator' }
    }])
  })

  it('injects other types with their payload and a chosen wamid', async () => {
    const payload = { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } }
    const { wamid } = await emulator.injectInbound({ phoneNumberId: NUMBER, from: '15556000002', type: 'interactive', payload, wamid: 'wamid.fixed' })
    expect(wamid).toBe('wamid.fixed')
    expect(callback.received[0].body.entry[0].changes[0].value.messages[0]).toMatchObject({ type: 'interactive', interactive: payload })
  })

  it('sends a template status update and applies it to its own templates', async () => {
    const status = await emulator.sendTemplateStatusUpdate({ wabaId: WABA, name: 'hello_world', language: 'en_US', event: 'PAUSED' })
    expect(status).toBe(200)
    const entry = callback.received[0].body.entry[0]
    expect(entry).toMatchObject({ id: WABA, time: expect.any(Number) })
    expect(entry.changes[0]).toEqual({
      field: 'message_template_status_update',
      value: {
        event: 'PAUSED',
        message_template_id: 1259544702043860,
        message_template_name: 'hello_world',
        message_template_language: 'en_US',
        reason: 'NONE',
        message_template_category: 'UTILITY'
      }
    })
    const listed = await graph(emulator, 'GET', `/${WABA}/message_templates?name=hello_world`)
    expect(listed.body.data[0].status).toBe('PAUSED')
    const template = { messaging_product: 'whatsapp', to: '15556000003', type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } }
    expect((await send(emulator, template)).body.error.code).toBe(132015)
    await emulator.sendTemplateStatusUpdate({ wabaId: WABA, name: 'hello_world', language: 'en_US', event: 'REINSTATED' })
    expect((await send(emulator, template)).status).toBe(200)
  })

  it('sends an arbitrary body, signed or with a forged signature', async () => {
    const body = { object: 'whatsapp_business_account', entry: [] }
    expect(await emulator.sendWebhook(WABA, body)).toBe(200)
    expect(callback.received[0].headers['x-hub-signature-256']).toBe(signature(JSON.stringify(body), emulator.appSecret))
    expect(await emulator.sendWebhook(WABA, body, { signature: 'sha256=deadbeef' })).toBe(401)
    expect(await emulator.sendWebhook(WABA, '{"raw": true}', { signature: null })).toBe(401)
    expect(callback.received[2].raw).toBe('{"raw": true}')
    expect(callback.received[2].headers['x-hub-signature-256']).toBeUndefined()
    await emulator.idle()
    expect(emulator.webhookDeliveries.map(d => d.status)).toEqual([200, 401, 401])
  })

  it('resolves with the first answer and retries in the background', async () => {
    callback.answer = index => (index === 0 ? 503 : 200)
    expect(await emulator.sendWebhook(WABA, { object: 'whatsapp_business_account', entry: [] })).toBe(503)
    await emulator.idle()
    expect(emulator.webhookDeliveries.map(d => d.status)).toEqual([503, 200])
  })
})
