import { describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, received, RECIPIENT } from './helpers.js'

const IMAGE = 'https://example.com/cat.jpg'
const BUTTONS = { type: 'button', body: { text: 'Pick one' }, action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }] } }
const LIST = {
  type: 'list',
  body: { text: 'Choose' },
  action: { button: 'Options', sections: [{ title: 'Main', rows: [{ id: 'r1', title: 'Row one', description: 'First' }] }] }
}
const CTA = { type: 'cta_url', body: { text: 'See it' }, action: { name: 'cta_url', parameters: { display_text: 'Open', url: 'https://example.com' } } }

const rows = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }))
const withAction = (base: typeof BUTTONS | typeof LIST | typeof CTA, action: Record<string, unknown>) => ({ ...base, action: { ...base.action, ...action } })

// Created upstream after the workspace's template sync: unknown locally, so it goes out as given.
const account = defaultAccount()
const unsynced = ['en', 'en_US', 'pt_BR', 'fil'].map(language => ({
  name: 'unsynced_template', language, status: 'APPROVED', category: 'UTILITY',
  components: [{ type: 'HEADER', format: 'TEXT', text: 'For {{1}}' }, { type: 'BODY', text: 'Hi {{1}}, {{2}} on {{3}}' }]
}))
// every kind of parameter: an image header, a body of three, a quick reply's payload and a URL button's suffix
const rich = { name: 'unsynced_rich', language: 'en_US', status: 'APPROVED', category: 'UTILITY',
  components: [{ type: 'HEADER', format: 'IMAGE' }, { type: 'BODY', text: 'Hi {{1}}, {{2}} on {{3}}' },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop' }, { type: 'URL', text: 'Open', url: 'https://example.com/{{1}}' }] }] }

/** Each row of CONTRACT.md section 2's field table: bodies that pass, and bodies that fail naming the field. */
describe('POST /api/messages.php: field rules', () => {
  const ctx = useGateway({ setup: gateway => { gateway.emulator.setTemplates(account.wabaId, [...account.templates, ...unsynced, rich]) } })

  async function accepted (body: Record<string, unknown>) {
    const response = await send(ctx.gateway, body, { authorization: ctx.workspace.authorization })
    expect(response.statusCode, response.body).toBe(200)
    return received(ctx.gateway, response.json().wamid)
  }

  async function refused (body: Record<string, unknown>, field: string | undefined) {
    const envelope = expectEnvelope(await send(ctx.gateway, body, { authorization: ctx.workspace.authorization }), 422, 'invalid_request')
    expect(envelope.field, String(envelope.error)).toBe(field)
    return String(envelope.error)
  }

  describe('to', () => {
    it.each(['15551234567', '+15551234567', '4930123', '123456789012345', '+447700900123'])('accepts %s and sends it without +', async to => {
      expect((await accepted({ to, body: 'x' })).to).toBe(to.replace('+', ''))
    })
    it.each([
      ['missing', undefined], ['empty', ''], ['a leading 0', '05551234567'], ['too short', '123456'], ['too long', '1234567890123456'],
      ['letters', '1555abc4567'], ['spaces', '+1 555 123 4567'], ['dashes', '1-555-123-4567'], ['two plus signs', '++15551234567'],
      ['a number, not a string', 15551234567], ['an array', ['15551234567']]
    ])('refuses %s', async (_case, to) => {
      expect(await refused({ to, body: 'x' }, 'to')).toMatch(/^to /)
    })
  })

  describe('type', () => {
    it('defaults to text', async () => {
      expect(await accepted({ to: RECIPIENT, body: 'x' })).toMatchObject({ type: 'text' })
    })
    it.each(['location', 'TEXT', 'reaction', '', 1])('refuses %s', async type => {
      await refused({ to: RECIPIENT, type, body: 'x' }, 'type')
    })
  })

  describe('body / text', () => {
    it('accepts 1 and 4096 characters', async () => {
      await accepted({ to: RECIPIENT, body: 'x' })
      await accepted({ to: RECIPIENT, body: 'é'.repeat(4096) })
    })
    it.each([
      ['missing', {}, 'body'], ['empty', { body: '' }, 'body'], ['only whitespace', { body: ' \n\t ' }, 'body'], ['4097 characters', { body: 'x'.repeat(4097) }, 'body'],
      ['not a string', { body: 5 }, 'body'], ['empty alias', { text: '' }, 'text'], ['alias too long', { text: 'x'.repeat(4097) }, 'text']
    ])('refuses %s', async (_case, fields, field) => {
      await refused({ to: RECIPIENT, ...fields }, field)
    })
  })

  describe('preview_url', () => {
    it('is passed on for text', async () => {
      expect((await accepted({ to: RECIPIENT, body: 'https://example.com', preview_url: true })).text).toEqual({ body: 'https://example.com', preview_url: true })
      expect((await accepted({ to: RECIPIENT, body: 'x' })).text).toEqual({ body: 'x' })
    })
    it('must be a boolean, and text only', async () => {
      await refused({ to: RECIPIENT, body: 'x', preview_url: 'yes' }, 'preview_url')
      await refused({ to: RECIPIENT, type: 'image', link: IMAGE, preview_url: true }, 'preview_url')
    })
  })

  describe('template / template_name', () => {
    it('is required for type template', async () => {
      await refused({ to: RECIPIENT, type: 'template' }, 'template')
    })
    it.each(['Hello_World', 'hello-world', 'hello world', '', 'x'.repeat(513)])('refuses the name %s', async template => {
      await refused({ to: RECIPIENT, type: 'template', template, language: 'en_US' }, 'template')
    })
    it('refuses a bad alias naming it', async () => {
      await refused({ to: RECIPIENT, type: 'template', template_name: 'Bad Name' }, 'template_name')
    })
  })

  describe('language', () => {
    it.each(['en', 'en_US', 'pt_BR', 'fil'])('accepts %s', async language => {
      const components = [{ type: 'header', parameters: [{ type: 'text', text: 'Ana' }] }, { type: 'body', parameters: ['a', 'b', 'c'].map(text => ({ type: 'text', text })) }]
      expect((await accepted({ to: RECIPIENT, type: 'template', template: 'unsynced_template', language, components })).template).toMatchObject({ language: { code: language } })
    })
    it.each(['EN', 'en-US', 'en_us', 'english', 'e', 'en_USA'])('refuses %s', async language => {
      await refused({ to: RECIPIENT, type: 'template', template: 'hello_world', language }, 'language')
    })
  })

  describe('components', () => {
    const template = { to: RECIPIENT, type: 'template', template: 'weekly_offer', language: 'en_US' }
    it('passes the upstream format through', async () => {
      const components = [
        { type: 'header', parameters: [{ type: 'image', image: { link: IMAGE } }] },
        { type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'currency', currency: { fallback_value: '$1', code: 'USD', amount_1000: 1000 } }, { type: 'date_time', date_time: { fallback_value: 'May 3' } }] },
        { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'STOP' }] },
        { type: 'button', sub_type: 'url', index: 1, parameters: [{ type: 'text', text: 'suffix' }] }
      ]
      const sent = await accepted({ ...template, template: 'unsynced_rich', components })
      expect(sent.template).toEqual({ name: 'unsynced_rich', language: { code: 'en_US' }, components })
    })
    it.each([
      ['not an array', { type: 'body' }],
      ['an entry that is not an object', ['body']],
      ['an entry without type', [{ parameters: [] }]],
      ['a type that is not a string', [{ type: 1 }]],
      ['parameters that are not an array', [{ type: 'body', parameters: { type: 'text', text: 'x' } }]],
      ['a parameter without type', [{ type: 'body', parameters: [{ text: 'x' }] }]],
      ['a text parameter without text', [{ type: 'body', parameters: [{ type: 'text', value: 'x' }] }]],
      ['a text parameter with a non-string text', [{ type: 'body', parameters: [{ type: 'text', text: 5 }] }]],
      ['a currency parameter without currency', [{ type: 'body', parameters: [{ type: 'currency', text: 'x' }] }]],
      ['a date_time that is not an object', [{ type: 'body', parameters: [{ type: 'date_time', date_time: 'May' }] }]],
      ['an image with neither id nor link', [{ type: 'header', parameters: [{ type: 'image', image: {} }] }]],
      ['an image with both id and link', [{ type: 'header', parameters: [{ type: 'image', image: { id: '1', link: IMAGE } }] }]],
      ['a document link that is not http(s)', [{ type: 'header', parameters: [{ type: 'document', document: { link: 'ftp://x/y.pdf' } }] }]],
      ['a payload parameter without payload', [{ type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload' }] }]],
      ['a button without sub_type', [{ type: 'button', index: '0', parameters: [] }]],
      ['a button without index', [{ type: 'button', sub_type: 'quick_reply' }]],
      ['a button index out of range', [{ type: 'button', sub_type: 'quick_reply', index: '12' }]],
      ['a button index of the wrong type', [{ type: 'button', sub_type: 'quick_reply', index: true }]]
    ])('refuses %s', async (_case, components) => {
      await refused({ ...template, components }, 'components')
    })
    it('is template only', async () => {
      await refused({ to: RECIPIENT, body: 'x', components: [] }, 'components')
    })
  })

  describe('media_id / link', () => {
    it.each(['image', 'document', 'audio', 'video', 'sticker'])('%s takes exactly one of them', async type => {
      expect((await accepted({ to: RECIPIENT, type, media_id: '1234567890' }))[type]).toEqual({ id: '1234567890' })
      expect((await accepted({ to: RECIPIENT, type, link: IMAGE }))[type]).toEqual({ link: IMAGE })
      await refused({ to: RECIPIENT, type }, 'media_id')
      await refused({ to: RECIPIENT, type, media_id: '1', link: IMAGE }, 'media_id')
    })
    it.each([
      ['not http(s)', 'ftp://example.com/a.jpg'], ['relative', '/a.jpg'], ['without a host', 'https:///a.jpg'], ['with spaces', 'https://example.com/a b.jpg'],
      ['over 2048 characters', `https://example.com/${'a'.repeat(2030)}`], ['not a URL', 'cat.jpg']
    ])('refuses a link %s', async (_case, link) => {
      await refused({ to: RECIPIENT, type: 'image', link }, 'link')
    })
    it('accepts a link of exactly 2048 characters', async () => {
      const link = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`
      expect((await accepted({ to: RECIPIENT, type: 'image', link })).image).toEqual({ link })
    })
    it('refuses media fields on a text message and an empty media_id', async () => {
      await refused({ to: RECIPIENT, body: 'x', media_id: '1' }, 'media_id')
      await refused({ to: RECIPIENT, body: 'x', link: IMAGE }, 'link')
      await refused({ to: RECIPIENT, type: 'image', media_id: '' }, 'media_id')
    })
  })

  describe('caption', () => {
    it.each(['image', 'video', 'document'])('is accepted for %s up to 1024 characters', async type => {
      expect((await accepted({ to: RECIPIENT, type, link: IMAGE, caption: 'c'.repeat(1024) }))[type]).toEqual({ link: IMAGE, caption: 'c'.repeat(1024) })
      await refused({ to: RECIPIENT, type, link: IMAGE, caption: 'c'.repeat(1025) }, 'caption')
    })
    it.each(['audio', 'sticker', 'text'])('is refused for %s', async type => {
      await refused({ to: RECIPIENT, type, ...(type === 'text' ? { body: 'x' } : { link: IMAGE }), caption: 'c' }, 'caption')
    })
  })

  describe('filename', () => {
    it('is passed on for documents only', async () => {
      expect((await accepted({ to: RECIPIENT, type: 'document', media_id: '77', filename: 'invoice.pdf' })).document).toEqual({ id: '77', filename: 'invoice.pdf' })
      await refused({ to: RECIPIENT, type: 'image', media_id: '77', filename: 'invoice.pdf' }, 'filename')
      await refused({ to: RECIPIENT, type: 'document', media_id: '77', filename: '' }, 'filename')
    })
  })

  describe('interactive', () => {
    it.each([['button', BUTTONS], ['list', LIST], ['cta_url', CTA]])('passes %s through unchanged', async (_type, interactive) => {
      expect((await accepted({ to: RECIPIENT, type: 'interactive', interactive })).interactive).toEqual(interactive)
    })
    it('passes the other known types through', async () => {
      const interactive = { type: 'location_request_message', body: { text: 'Where are you?' }, action: { name: 'send_location' } }
      expect((await accepted({ to: RECIPIENT, type: 'interactive', interactive })).interactive).toEqual(interactive)
    })
    it('accepts the bounds themselves', async () => {
      const three = [1, 2, 3].map(i => ({ type: 'reply', reply: { id: `id${i}`, title: `${'t'.repeat(19)}${i}` } }))
      await accepted({ to: RECIPIENT, type: 'interactive', interactive: { ...withAction(BUTTONS, { buttons: three }), body: { text: 'b'.repeat(1024) } } })
      const sections = Array.from({ length: 10 }, (_, i) => ({ title: `S${i}`, rows: [{ id: `r${i}`, title: 'r'.repeat(24), description: 'd'.repeat(72) }] }))
      await accepted({ to: RECIPIENT, type: 'interactive', interactive: withAction(LIST, { sections }) })
    })
    it.each([
      ['missing', undefined],
      ['not an object', 'button'],
      ['an unknown type', { type: 'carousel', body: { text: 'x' } }],
      ['no type', { body: { text: 'x' } }],
      ['buttons without a body', { ...BUTTONS, body: undefined }],
      ['a body over 1024', { ...BUTTONS, body: { text: 'b'.repeat(1025) } }],
      ['a footer over 60', { ...BUTTONS, footer: { text: 'f'.repeat(61) } }],
      ['a header text over 60', { ...BUTTONS, header: { type: 'text', text: 'h'.repeat(61) } }],
      ['no buttons', withAction(BUTTONS, { buttons: [] })],
      ['four buttons', withAction(BUTTONS, { buttons: [1, 2, 3, 4].map(i => ({ type: 'reply', reply: { id: `${i}`, title: `${i}` } })) })],
      ['a button title over 20', withAction(BUTTONS, { buttons: [{ type: 'reply', reply: { id: 'a', title: 't'.repeat(21) } }] })],
      ['an empty button title', withAction(BUTTONS, { buttons: [{ type: 'reply', reply: { id: 'a', title: '' } }] })],
      ['a button id over 256', withAction(BUTTONS, { buttons: [{ type: 'reply', reply: { id: 'i'.repeat(257), title: 'x' } }] })],
      ['duplicate button titles', withAction(BUTTONS, { buttons: [{ type: 'reply', reply: { id: 'a', title: 'Same' } }, { type: 'reply', reply: { id: 'b', title: 'Same' } }] })],
      ['a button that is not a reply', withAction(BUTTONS, { buttons: [{ type: 'url', reply: { id: 'a', title: 'x' } }] })],
      ['a list button label over 20', withAction(LIST, { button: 'b'.repeat(21) })],
      ['no sections', withAction(LIST, { sections: [] })],
      ['eleven sections', withAction(LIST, { sections: Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: [{ id: `r${i}`, title: 'x' }] })) })],
      ['eleven rows in one section', withAction(LIST, { sections: [{ title: 'S', rows: rows(11) }] })],
      ['eleven rows across sections', withAction(LIST, { sections: [{ title: 'A', rows: rows(6) }, { title: 'B', rows: rows(5) }] })],
      ['a row title over 24', withAction(LIST, { sections: [{ title: 'S', rows: [{ id: 'r', title: 'r'.repeat(25) }] }] })],
      ['a row description over 72', withAction(LIST, { sections: [{ title: 'S', rows: [{ id: 'r', title: 'r', description: 'd'.repeat(73) }] }] })],
      ['a row id over 200', withAction(LIST, { sections: [{ title: 'S', rows: [{ id: 'i'.repeat(201), title: 'r' }] }] })],
      ['a section title over 24', withAction(LIST, { sections: [{ title: 's'.repeat(25), rows: rows(1) }] })],
      ['untitled sections among several', withAction(LIST, { sections: [{ rows: rows(1) }, { title: 'B', rows: rows(1) }] })],
      ['a section without rows', withAction(LIST, { sections: [{ title: 'S', rows: [] }] })],
      ['a cta display_text over 20', withAction(CTA, { parameters: { display_text: 'd'.repeat(21), url: 'https://example.com' } })],
      ['a cta url that is not http(s)', withAction(CTA, { parameters: { display_text: 'Open', url: 'javascript:alert(1)' } })],
      ['a cta without its name', withAction(CTA, { name: 'link' })],
      ['a cta without action', { ...CTA, action: undefined }]
    ])('refuses %s', async (_case, interactive) => {
      await refused({ to: RECIPIENT, type: 'interactive', interactive }, 'interactive')
    })
    it('is interactive only', async () => {
      await refused({ to: RECIPIENT, body: 'x', interactive: BUTTONS }, 'interactive')
    })
  })

  describe('reply_to', () => {
    it('is sent as context.message_id, for any type', async () => {
      const wamid = 'wamid.HBgLMTU1NTEyMzQ1NjcVAgASGBQzQUZBNkI0RDcxNDVGNzA1RjhGRgA='
      expect(await accepted({ to: RECIPIENT, body: 'x', reply_to: wamid })).toMatchObject({ context: { message_id: wamid } })
      expect(await accepted({ to: RECIPIENT, type: 'image', media_id: '1', reply_to: wamid })).toMatchObject({ context: { message_id: wamid } })
    })
    it.each(['abc', 'wamid.', '', 'WAMID.x'])('refuses %s', async replyTo => {
      await refused({ to: RECIPIENT, body: 'x', reply_to: replyTo }, 'reply_to')
    })
  })

  it('refuses phone_number_id of the wrong type', async () => {
    await refused({ to: RECIPIENT, body: 'x', phone_number_id: 106540352242922 }, 'phone_number_id')
  })
})
