import { describe, expect, it } from 'vitest'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope, latestRecord, received, RECIPIENT } from './helpers.js'

const LINK = 'https://example.com/files/report.pdf'

/** What the upstream receives for each message type, and the log record kept of it. */
describe('POST /api/messages.php: upstream payloads and the log record', () => {
  // Status webhooks would move records past `sent` at once; what the send itself leaves is the point here.
  const ctx = useGateway({ setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) } })

  async function sent (body: Record<string, unknown>) {
    const response = await send(ctx.gateway, body, { authorization: ctx.workspace.authorization })
    expect(response.statusCode, response.body).toBe(200)
    const answer = response.json()
    expect(answer).toEqual({ ok: true, id: expect.stringMatching(/^msg_/), wamid: expect.stringMatching(/^wamid\./), status: 'sent' })
    const record = await latestRecord(ctx.gateway, ctx.workspace.workspaceId)
    return { payload: received(ctx.gateway, answer.wamid), record, wamid: answer.wamid as string }
  }

  const envelope = (recordId: string, to = RECIPIENT) => ({
    messaging_product: 'whatsapp', recipient_type: 'individual', to, biz_opaque_callback_data: recordId
  })

  it('text, with preview_url, and the record ends sent with the wamid', async () => {
    const { payload, record, wamid } = await sent({ to: `+${RECIPIENT}`, body: 'See https://example.com', preview_url: false })
    expect(payload).toEqual({ ...envelope(record.id), type: 'text', text: { body: 'See https://example.com', preview_url: false } })
    expect(record).toMatchObject({
      workspaceId: ctx.workspace.workspaceId, apiKeyId: ctx.workspace.apiKeyId, phoneNumberId: ctx.workspace.connection.phone_numbers[0].phone_number_id,
      recipient: RECIPIENT, type: 'text', status: 'sent', wamid, attempts: 1, errorCode: null, payload
    })
  })

  it('template with language and components', async () => {
    const components = [{ type: 'body', parameters: [{ type: 'text', text: 'SKBUP2' }] }]
    const { payload, record } = await sent({ to: RECIPIENT, type: 'template', template: 'order_confirmation', language: 'pt_BR', components })
    expect(payload).toEqual({ ...envelope(record.id), type: 'template', template: { name: 'order_confirmation', language: { code: 'pt_BR' }, components } })
    expect(record.type).toBe('template')
  })

  it('template without components', async () => {
    const { payload, record } = await sent({ to: RECIPIENT, type: 'template', template_name: 'hello_world' })
    expect(payload).toEqual({ ...envelope(record.id), type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } })
  })

  it.each([
    ['image', { media_id: '1013859600285441', caption: 'A cat' }, { id: '1013859600285441', caption: 'A cat' }],
    ['image', { link: 'https://example.com/cat.jpg' }, { link: 'https://example.com/cat.jpg' }],
    ['video', { link: 'https://example.com/clip.mp4', caption: 'Clip' }, { link: 'https://example.com/clip.mp4', caption: 'Clip' }],
    ['document', { link: LINK, caption: 'Report', filename: 'report.pdf' }, { link: LINK, caption: 'Report', filename: 'report.pdf' }],
    ['audio', { media_id: '55' }, { id: '55' }],
    ['sticker', { link: 'https://example.com/s.webp' }, { link: 'https://example.com/s.webp' }]
  ])('%s %j', async (type, fields, object) => {
    const { payload, record } = await sent({ to: RECIPIENT, type, ...fields })
    expect(payload).toEqual({ ...envelope(record.id), type, [type]: object })
    expect(record.type).toBe(type)
  })

  it.each([
    { type: 'button', header: { type: 'text', text: 'Order 42' }, body: { text: 'Confirm?' }, footer: { text: 'Shop' }, action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }, { type: 'reply', reply: { id: 'no', title: 'No' } }] } },
    { type: 'list', body: { text: 'Pick a slot' }, action: { button: 'Slots', sections: [{ title: 'Today', rows: [{ id: 'am', title: 'Morning' }] }, { title: 'Tomorrow', rows: [{ id: 'pm', title: 'Afternoon', description: '14–17h' }] }] } },
    { type: 'cta_url', body: { text: 'Your invoice' }, action: { name: 'cta_url', parameters: { display_text: 'Open', url: 'https://example.com/i/1' } } },
    { type: 'flow', body: { text: 'Book' }, action: { name: 'flow', parameters: { flow_message_version: '3', flow_token: 't', flow_id: '1', flow_cta: 'Book', flow_action: 'navigate', flow_action_payload: { screen: 'START', data: { a: 1 } } } } }
  ])('interactive $type passed through', async interactive => {
    const { payload, record } = await sent({ to: RECIPIENT, type: 'interactive', interactive })
    expect(payload).toEqual({ ...envelope(record.id), type: 'interactive', interactive })
  })

  it('reply_to becomes context.message_id', async () => {
    const { wamid: first } = await sent({ to: RECIPIENT, body: 'first' })
    const { payload, record } = await sent({ to: RECIPIENT, body: 'second', reply_to: first })
    expect(payload).toEqual({ ...envelope(record.id), type: 'text', text: { body: 'second' }, context: { message_id: first } })
  })

  it('keeps one record per accepted request, none for a refused body', async () => {
    const before = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 500 })).length
    expectEnvelope(await send(ctx.gateway, { to: RECIPIENT }, { authorization: ctx.workspace.authorization }), 422, 'invalid_request')
    await sent({ to: RECIPIENT, body: 'counted' })
    expect((await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 500 })).length).toBe(before + 1)
  })
})
