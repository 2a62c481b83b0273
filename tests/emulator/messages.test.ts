import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type Emulator } from '../../src/sandbox/emulator/index.js'
import { NUMBER, send, text, type Body } from './helpers.js'

const TO = '15551234567'
const base = { messaging_product: 'whatsapp', to: TO }
const long = (n: number): string => 'x'.repeat(n)
const buttons = (titles: string[]): unknown => ({
  type: 'button',
  body: { text: 'Pick one' },
  action: { buttons: titles.map((title, i) => ({ type: 'reply', reply: { id: `b${i}`, title } })) }
})
const list = (rowsPerSection: number[]): unknown => ({
  type: 'list',
  body: { text: 'Choose' },
  action: {
    button: 'Options',
    sections: rowsPerSection.map((rows, s) => ({ title: `S${s}`, rows: Array.from({ length: rows }, (_, r) => ({ id: `r${s}-${r}`, title: `Row ${r}` })) }))
  }
})

describe('emulator: POST /{phone-number-id}/messages', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('accepts a text message like the upstream', async () => {
    const response = await send(emulator, text(`+${TO}`))
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: `+${TO}`, wa_id: TO }],
      messages: [{ id: expect.stringMatching(/^wamid\.[A-Za-z0-9+/]{40,60}={0,2}$/) }]
    })
    expect(emulator.sentMessages).toEqual([
      { wamid: response.body.messages[0].id, phoneNumberId: NUMBER, to: TO, payload: text(`+${TO}`), at: expect.any(Number) }
    ])
    expect(emulator.stats.accepted[NUMBER]).toBe(1)
  })

  it('gives every message its own wamid', async () => {
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => send(emulator, text(`1555100${String(i).padStart(4, '0')}`))))
    const ids = responses.map(r => r.body.messages[0].id as string)
    expect(new Set(ids).size).toBe(60)
    for (const id of ids) expect(id.length - 'wamid.'.length).toBeGreaterThanOrEqual(40)
  })

  it.each([
    ['no messaging_product', { to: TO, text: { body: 'x' } }, 100, 'messaging_product'],
    ['wrong messaging_product', { ...base, messaging_product: 'sms', text: { body: 'x' } }, 100, 'messaging_product'],
    ['no to', { messaging_product: 'whatsapp', text: { body: 'x' } }, 100, 'to'],
    ['unknown type', { ...base, type: 'fax', fax: {} }, 100, 'type'],
    ['type object missing', { ...base, type: 'image' }, 100, 'image'],
    ['empty text', { ...base, text: { body: '  ' } }, 100, "text['body']"],
    ['text too long', { ...base, text: { body: long(4097) } }, 100, "text['body']"],
    ['media with id and link', { ...base, type: 'image', image: { id: '1', link: 'https://x.test/a.png' } }, 100, 'image'],
    ['media with neither', { ...base, type: 'video', video: { caption: 'c' } }, 100, 'video'],
    ['caption on audio', { ...base, type: 'audio', audio: { id: '1', caption: 'c' } }, 100, "audio['caption']"],
    ['caption on sticker', { ...base, type: 'sticker', sticker: { id: '1', caption: 'c' } }, 100, "sticker['caption']"],
    ['caption too long', { ...base, type: 'document', document: { id: '1', caption: long(1025) } }, 100, "document['caption']"],
    ['template without name', { ...base, type: 'template', template: { language: { code: 'en_US' } } }, 100, "template['name']"],
    ['template without language', { ...base, type: 'template', template: { name: 'hello_world' } }, 100, "template['language']"],
    ['four reply buttons', { ...base, type: 'interactive', interactive: buttons(['a', 'b', 'c', 'd']) }, 131009, 'buttons'],
    ['button title of 21', { ...base, type: 'interactive', interactive: buttons([long(21)]) }, 131009, 'Button title'],
    ['eleven list rows', { ...base, type: 'interactive', interactive: list([6, 5]) }, 131009, 'row count'],
    ['eleven sections', { ...base, type: 'interactive', interactive: list(Array.from({ length: 11 }, () => 1)) }, 131009, 'sections'],
    ['interactive body too long', { ...base, type: 'interactive', interactive: { ...(buttons(['a']) as object), body: { text: long(1025) } } }, 100, "interactive['body']['text']"],
    ['opaque data too long', { ...text(TO), biz_opaque_callback_data: long(513) }, 100, 'biz_opaque_callback_data'],
    ['context without message_id', { ...text(TO), context: {} }, 100, "context['message_id']"]
  ])('refuses %s', async (_name, payload, code, field) => {
    const response = await send(emulator, payload)
    expect(response.status).toBe(400)
    expect(response.body.error.code).toBe(code)
    expect(response.body.error.message).toMatch(/^\(#\d+\) /)
    expect(response.body.error.error_data.details).toContain(field)
    expect(emulator.stats.accepted[NUMBER]).toBeUndefined()
  })

  it.each([
    ['image by link with caption', { type: 'image', image: { link: 'https://example.com/a.png', caption: 'hi' } }],
    ['document by id', { type: 'document', document: { id: '123', filename: 'a.pdf' } }],
    ['three reply buttons', { type: 'interactive', interactive: buttons(['a', 'b', 'c']) }],
    ['ten rows in two sections', { type: 'interactive', interactive: list([5, 5]) }],
    ['location', { type: 'location', location: { latitude: 1.5, longitude: 2.5 } }],
    ['reaction', { type: 'reaction', reaction: { message_id: 'wamid.x', emoji: '👍' } }],
    ['reply with context', { type: 'text', text: { body: 'yes' }, context: { message_id: 'wamid.abc' } }],
    ['text without type', { text: { body: 'defaults to text' } }]
  ])('accepts %s', async (_name, payload) => {
    const response = await send(emulator, { ...base, ...payload })
    expect(response.status).toBe(200)
  })

  it('checks templates against the WABA: existence, language, status, parameters', async () => {
    const template = (name: string, code: string, components?: unknown): unknown =>
      ({ ...base, type: 'template', template: { name, language: { code }, components } })
    const ok = await send(emulator, template('hello_world', 'en_US'))
    expect(ok.body.messages[0]).toEqual({ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' })
    const params = [{ type: 'body', parameters: [{ type: 'text', text: 'SKBUP2' }] }]
    expect((await send(emulator, template('order_confirmation', 'pt_BR', params))).status).toBe(200)

    const wrongLanguage = await send(emulator, template('hello_world', 'pt_BR'))
    expect(wrongLanguage.body.error).toMatchObject({ code: 132001, message: '(#132001) Template name does not exist in the translation' })
    expect(wrongLanguage.body.error.error_data.details).toBe('template name (hello_world) does not exist in pt_BR')
    expect((await send(emulator, template('promo_rejected', 'en_US'))).body.error.code).toBe(132001)
    expect((await send(emulator, template('appointment_reminder', 'en_US'))).body.error.code).toBe(132001)
    expect((await send(emulator, template('nope', 'en_US'))).body.error.code).toBe(132001)
    expect((await send(emulator, template('order_confirmation', 'en_US'))).body.error.code).toBe(132000)
  })

  it('refuses a read receipt for a message the number never received (131009; tests/emulator/read-receipts.test.ts has the rest)', async () => {
    const response = await send(emulator, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.in' })
    expect(response.body.error.code).toBe(131009)
  })

  it('takes form-encoded bodies with JSON values, as Graph does', async () => {
    const form = new URLSearchParams({ messaging_product: 'whatsapp', to: TO, type: 'text', text: JSON.stringify({ body: 'form' }) })
    const response = await fetch(`${emulator.url}/${NUMBER}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-access-token' },
      body: form
    })
    expect(response.status).toBe(200)
  })

  it('answers malformed JSON with a Graph error', async () => {
    const response = await fetch(`${emulator.url}/${NUMBER}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-access-token', 'content-type': 'application/json' },
      body: '{"messaging_product":'
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as Body).error.code).toBe(100)
  })
})
