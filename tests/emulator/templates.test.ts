import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator, type EmulatedTemplate, type Emulator } from '../../src/sandbox/emulator/index.js'
import { graph, WABA } from './helpers.js'

const seven: EmulatedTemplate[] = Array.from({ length: 7 }, (_, i) => ({
  name: `template_${i}`,
  language: 'en_US',
  status: i === 6 ? 'REJECTED' : 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: `Body ${i}` }]
}))

describe('emulator: GET /{waba-id}/message_templates', () => {
  let emulator: Emulator
  beforeAll(async () => { emulator = await startEmulator() })
  beforeEach(() => emulator.reset())
  afterAll(() => emulator.close())

  it('lists the default templates on one page', async () => {
    const response = await graph(emulator, 'GET', `/${WABA}/message_templates`)
    expect(response.body.data[0]).toEqual({
      name: 'hello_world',
      components: [{ type: 'BODY', text: 'Hello World' }],
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      id: expect.any(String)
    })
    expect(response.body.data.map((t: { name: string, language: string }) => `${t.name}/${t.language}`)).toEqual(expect.arrayContaining([
      'order_confirmation/en_US', 'order_confirmation/pt_BR', 'promo_rejected/en_US'
    ]))
    expect(response.body.paging.next).toBeUndefined()
  })

  it('pages with limit and after, following paging.next to the end', async () => {
    emulator.setTemplates(WABA, seven)
    const pages: string[][] = []
    let next: string | undefined = `/${WABA}/message_templates?limit=3&fields=name,status`
    while (next !== undefined) {
      const response = await graph(emulator, 'GET', next)
      expect(response.status).toBe(200)
      pages.push(response.body.data.map((t: { name: string }) => t.name))
      expect(Object.keys(response.body.paging.cursors)).toEqual(['before', 'after'])
      next = response.body.paging.next
      if (next !== undefined) {
        expect(next.startsWith(`${emulator.url}/${WABA}/message_templates?`)).toBe(true)
        expect(new URL(next).searchParams.get('limit')).toBe('3')
        expect(new URL(next).searchParams.get('after')).toBe(response.body.paging.cursors.after)
        expect(new URL(next).searchParams.get('fields')).toBe('name,status')
      }
    }
    expect(pages).toEqual([['template_0', 'template_1', 'template_2'], ['template_3', 'template_4', 'template_5'], ['template_6']])
    expect(emulator.requests).toHaveLength(3)
  })

  it('filters by status and refuses a bad cursor', async () => {
    emulator.setTemplates(WABA, seven)
    const approved = await graph(emulator, 'GET', `/${WABA}/message_templates?status=APPROVED&limit=100`)
    expect(approved.body.data).toHaveLength(6)
    const bad = await graph(emulator, 'GET', `/${WABA}/message_templates?after=bogus`)
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe(100)
  })

  it('makes set templates sendable', async () => {
    emulator.setTemplates(WABA, seven)
    const sendTemplate = (name: string): ReturnType<typeof graph> => graph(emulator, 'POST', '/106540352242922/messages', {
      body: { messaging_product: 'whatsapp', to: '15551234567', type: 'template', template: { name, language: { code: 'en_US' } } }
    })
    expect((await sendTemplate('template_3')).status).toBe(200)
    expect((await sendTemplate('hello_world')).body.error.code).toBe(132001)
  })
})
