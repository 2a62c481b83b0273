import { describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, form, multipart, received, RECIPIENT } from './helpers.js'

describe('POST /api/messages.php: body formats', () => {
  const ctx = useGateway({ env: { BODY_LIMIT_BYTES: '16384' } })

  async function sentPayload (payload: string | Buffer | object, headers: Record<string, string> = {}) {
    const response = await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers })
    expect(response.statusCode, response.body).toBe(200)
    return received(ctx.gateway, response.json().wamid)
  }

  describe('JSON', () => {
    it('accepts application/json with and without a charset, in any case', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON; Charset="UTF-8"', 'application/json;charset=utf-8']) {
        expect(await sentPayload(JSON.stringify({ to: RECIPIENT, body: 'Grüße' }), { 'content-type': type })).toMatchObject({ text: { body: 'Grüße' } })
      }
    })

    it('decodes the charset the Content-Type names', async () => {
      const latin1 = Buffer.from(JSON.stringify({ to: RECIPIENT, body: 'café' }), 'latin1')
      expect(await sentPayload(latin1, { 'content-type': 'application/json; charset=iso-8859-1' })).toMatchObject({ text: { body: 'café' } })
      const utf16 = Buffer.from(JSON.stringify({ to: RECIPIENT, body: 'ありがとう' }), 'utf16le')
      expect(await sentPayload(utf16, { 'content-type': 'application/json; charset=utf-16le' })).toMatchObject({ text: { body: 'ありがとう' } })
    })

    it('answers an unknown charset with 415 and bytes invalid in the charset with 422', async () => {
      expectEnvelope(await send(ctx.gateway, '{}', { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/json; charset=klingon' } }), 415, 'unsupported_media_type')
      const invalid = Buffer.concat([Buffer.from(`{"to":"${RECIPIENT}","body":"`), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')])
      expectEnvelope(await send(ctx.gateway, invalid, { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/json' } }), 422, 'invalid_request')
    })

    it.each([
      ['malformed JSON', '{"to": "15551234567",'],
      ['an empty body', ''],
      ['only whitespace', '  \n '],
      ['an array', `[{"to":"${RECIPIENT}","body":"x"}]`],
      ['a string', '"hello"'],
      ['a number', '42'],
      ['null', 'null'],
      ['a __proto__ key', `{"to":"${RECIPIENT}","body":"x","__proto__":{"polluted":true}}`],
      ['a constructor.prototype key', `{"to":"${RECIPIENT}","body":"x","constructor":{"prototype":{"polluted":true}}}`],
      ['a very deep nesting', `{"to":"${RECIPIENT}","body":"x","extra":${'['.repeat(5000)}${']'.repeat(5000)}}`]
    ])('answers %s with 422', async (_case, payload) => {
      expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/json' } }), 422, 'invalid_request')
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    })

    it.each([
      ['a NUL character', `{"to":"${RECIPIENT}","body":"a\\u0000b"}`, 'body'],
      ['a lone surrogate', `{"to":"${RECIPIENT}","body":"a\\ud800b"}`, 'body'],
      ['a lone surrogate deep in interactive', `{"to":"${RECIPIENT}","type":"interactive","interactive":{"type":"flow","body":{"text":"\\udc00"}}}`, 'interactive']
    ])('answers %s, which no database or upstream takes, with 422 naming the field', async (_case, payload, field) => {
      const body = expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/json' } }), 422, 'invalid_request')
      expect(body.field).toBe(field)
    })

    it('answers a POST without any body with 422', async () => {
      expectEnvelope(await send(ctx.gateway, undefined, { authorization: ctx.workspace.authorization }), 422, 'invalid_request')
    })

    it('ignores unknown fields', async () => {
      expect(await sentPayload({ to: RECIPIENT, body: 'x', colour: 'blue', nested: { a: 1 } })).toEqual(expect.not.objectContaining({ colour: expect.anything() }))
    })
  })

  describe('forms', () => {
    it('accepts application/x-www-form-urlencoded', async () => {
      const { headers, payload } = form(`to=%2B${RECIPIENT}&body=Hello%20there%21&preview_url=1`)
      expect(await sentPayload(payload, headers)).toMatchObject({ to: RECIPIENT, text: { body: 'Hello there!', preview_url: true } })
    })

    it('reads nested keys as PHP http_build_query writes them', async () => {
      const query = [
        `to=${RECIPIENT}`, 'type=template', 'template=order_confirmation', 'language=en_US',
        'components%5B0%5D%5Btype%5D=body',
        'components%5B0%5D%5Bparameters%5D%5B0%5D%5Btype%5D=text',
        'components%5B0%5D%5Bparameters%5D%5B0%5D%5Btext%5D=SKBUP2'
      ].join('&')
      const { headers, payload } = form(query)
      expect((await sentPayload(payload, headers)).template).toEqual({
        name: 'order_confirmation', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'SKBUP2' }] }]
      })
    })

    it('reads unencoded brackets too', async () => {
      const { headers, payload } = form(`to=${RECIPIENT}&type=template&template=order_confirmation&language=pt_BR&components[0][type]=body&components[0][parameters][0][type]=text&components[0][parameters][0][text]=A1`)
      expect((await sentPayload(payload, headers)).template).toMatchObject({ language: { code: 'pt_BR' }, components: [{ parameters: [{ text: 'A1' }] }] })
    })

    it('keeps the numbers the upstream wants as numbers (currency amount_1000)', async () => {
      const { headers, payload } = form(`to=${RECIPIENT}&type=template&template=order_confirmation&language=en_US&components[0][type]=body&components[0][parameters][0][type]=currency&components[0][parameters][0][currency][fallback_value]=%24100.99&components[0][parameters][0][currency][code]=USD&components[0][parameters][0][currency][amount_1000]=100990`)
      expect(await sentPayload(payload, headers)).toMatchObject({ template: { components: [{ parameters: [{ type: 'currency', currency: { fallback_value: '$100.99', code: 'USD', amount_1000: 100990 } }] }] } })
    })

    it('says so when a JSON body comes with a form Content-Type (curl -d without -H)', async () => {
      const body = expectEnvelope(await send(ctx.gateway, JSON.stringify({ to: RECIPIENT, body: 'x' }), { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 422, 'invalid_request')
      expect(body.error).toMatch(/JSON.*Content-Type: application\/json/)
    })

    it('accepts components and interactive as a JSON string', async () => {
      const components = JSON.stringify([{ type: 'body', parameters: [{ type: 'text', text: 'Z9' }] }])
      const { headers, payload } = form(`to=${RECIPIENT}&type=template&template_name=order_confirmation&language=en_US&components=${encodeURIComponent(components)}`)
      expect((await sentPayload(payload, headers)).template).toMatchObject({ components: [{ parameters: [{ text: 'Z9' }] }] })
      const interactive = { type: 'button', body: { text: 'Pick' }, action: { buttons: [{ type: 'reply', reply: { id: 'y', title: 'Yes' } }] } }
      const second = form(`to=${RECIPIENT}&type=interactive&interactive=${encodeURIComponent(JSON.stringify(interactive))}`)
      expect((await sentPayload(second.payload, second.headers)).interactive).toEqual(interactive)
    })

    it('answers a JSON string that is not JSON with 422 naming the field', async () => {
      const { headers, payload } = form(`to=${RECIPIENT}&type=template&template=hello_world&components=%5Bnope`)
      const body = expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers }), 422, 'invalid_request')
      expect(body.field).toBe('components')
    })

    it('drops prototype keys and refuses forms over the nesting and size limits', async () => {
      const polluting = form(`to=${RECIPIENT}&body=x&__proto__[polluted]=1&constructor[prototype][polluted]=1`)
      expect((await send(ctx.gateway, polluting.payload, { authorization: ctx.workspace.authorization, headers: polluting.headers })).statusCode).toBe(200)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      const deep = form(`to=${RECIPIENT}&body=x&a${'[b]'.repeat(20)}=1`)
      expectEnvelope(await send(ctx.gateway, deep.payload, { authorization: ctx.workspace.authorization, headers: deep.headers }), 422, 'invalid_request')
      const many = form(`to=${RECIPIENT}&body=x&${Array.from({ length: 1200 }, (_, i) => `k${i}=1`).join('&')}`)
      expectEnvelope(await send(ctx.gateway, many.payload, { authorization: ctx.workspace.authorization, headers: many.headers }), 422, 'invalid_request')
    })

    it('answers a repeated scalar field with 422', async () => {
      const { headers, payload } = form(`to=${RECIPIENT}&to=15557654321&body=x`)
      expect(expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers }), 422, 'invalid_request').field).toBe('to')
    })
  })

  describe('multipart/form-data', () => {
    it('accepts fields, nested keys and JSON strings', async () => {
      const { headers, payload } = multipart([
        ['to', RECIPIENT], ['type', 'template'], ['template', 'weekly_offer'], ['language', 'en_US'],
        ['components[0][type]', 'body'], ['components[0][parameters][0][type]', 'text'], ['components[0][parameters][0][text]', 'Ana'],
        ['components[0][parameters][1][type]', 'text'], ['components[0][parameters][1][text]', '15%']
      ])
      expect((await sentPayload(payload, headers)).template).toMatchObject({ name: 'weekly_offer', components: [{ parameters: [{ text: 'Ana' }, { text: '15%' }] }] })
      const json = multipart([['to', RECIPIENT], ['type', 'interactive'], ['interactive', JSON.stringify({ type: 'cta_url', body: { text: 'Go' }, action: { name: 'cta_url', parameters: { display_text: 'Open', url: 'https://example.com' } } })]])
      expect((await sentPayload(json.payload, json.headers)).interactive).toMatchObject({ type: 'cta_url' })
    })

    it('answers a file part with 422', async () => {
      const { headers, payload } = multipart([['to', RECIPIENT], ['type', 'image']], { field: 'media', filename: 'cat.jpg', content: 'JPEG…' })
      const body = expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers }), 422, 'invalid_request')
      expect(body.field).toBe('media')
    })

    it('answers a body over the limit with 413, with or without Content-Length', async () => {
      const { headers, payload } = multipart([['to', RECIPIENT], ['body', 'x'.repeat(20_000)]])
      expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers }), 413, 'payload_too_large')
      const { Readable } = await import('node:stream')
      const chunked = await ctx.gateway.app.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: ctx.workspace.authorization, ...headers }, payload: Readable.from([payload]) })
      expectEnvelope(chunked, 413, 'payload_too_large')
    })

    it('answers malformed multipart with 422', async () => {
      expectEnvelope(await send(ctx.gateway, 'garbage', { authorization: ctx.workspace.authorization, headers: { 'content-type': 'multipart/form-data' } }), 422, 'invalid_request')
      expectEnvelope(await send(ctx.gateway, 'garbage', { authorization: ctx.workspace.authorization, headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }), 422, 'invalid_request')
    })
  })

  describe('other content types and limits', () => {
    it.each(['text/plain', 'application/xml', 'application/octet-stream', 'application/vnd.api+json', 'multipart/mixed; boundary=x', 'image/png'])('answers %s with 415', async type => {
      expectEnvelope(await send(ctx.gateway, '{"to":"15551234567","body":"x"}', { authorization: ctx.workspace.authorization, headers: { 'content-type': type } }), 415, 'unsupported_media_type')
    })

    it('answers a compressed body with 415 naming its Content-Encoding', async () => {
      const { gzipSync } = await import('node:zlib')
      const zipped = gzipSync(JSON.stringify({ to: RECIPIENT, body: 'x' }))
      for (const encoding of ['gzip', 'br']) {
        const body = expectEnvelope(await send(ctx.gateway, zipped, { authorization: ctx.workspace.authorization, headers: { 'content-type': 'application/json', 'content-encoding': encoding } }), 415, 'unsupported_media_type')
        expect(body.error).toContain(`"${encoding}"`)
      }
    })

    it('answers a JSON or form body over BODY_LIMIT_BYTES with 413', async () => {
      expectEnvelope(await send(ctx.gateway, { to: RECIPIENT, body: 'x'.repeat(17_000) }, { authorization: ctx.workspace.authorization }), 413, 'payload_too_large')
      const { headers, payload } = form(`to=${RECIPIENT}&body=${'x'.repeat(17_000)}`)
      expectEnvelope(await send(ctx.gateway, payload, { authorization: ctx.workspace.authorization, headers }), 413, 'payload_too_large')
    })
  })

  describe('aliases', () => {
    it('takes text for body and template_name for template', async () => {
      expect(await sentPayload({ to: RECIPIENT, text: 'via alias' })).toMatchObject({ text: { body: 'via alias' } })
      expect(await sentPayload({ to: RECIPIENT, type: 'template', template_name: 'hello_world' })).toMatchObject({ template: { name: 'hello_world' } })
    })

    it('prefers the field over its alias, even when the alias is invalid', async () => {
      expect(await sentPayload({ to: RECIPIENT, body: 'field', text: 'alias' })).toMatchObject({ text: { body: 'field' } })
      expect(await sentPayload({ to: RECIPIENT, body: 'field', text: 42 })).toMatchObject({ text: { body: 'field' } })
      expect(await sentPayload({ to: RECIPIENT, type: 'template', template: 'hello_world', template_name: 'order_confirmation' })).toMatchObject({ template: { name: 'hello_world' } })
      const { headers, payload } = form(`to=${RECIPIENT}&text=alias&body=field`)
      expect(await sentPayload(payload, headers)).toMatchObject({ text: { body: 'field' } })
    })

    it('validates an alias given alone, naming it', async () => {
      const body = expectEnvelope(await send(ctx.gateway, { to: RECIPIENT, text: '' }, { authorization: ctx.workspace.authorization }), 422, 'invalid_request')
      expect(body.field).toBe('text')
    })
  })
})
