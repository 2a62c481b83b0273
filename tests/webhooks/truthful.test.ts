import { describe, expect, it } from 'vitest'
import { send as sendMessage } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { envelope, inboxDrained, messagesValue, NUMBER_ID, status, textMessage, WABA_ID } from './helpers.js'

describe('everything the upstream sends is kept truthfully', () => {
  // 15550000004 never answers: a short timeout ends its send with an unknown outcome
  const ctx = useGateway({
    env: { UPSTREAM_TIMEOUT_MS: '300' },
    setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) }
  })

  async function send (to: string): Promise<{ id: string, wamid: string | null, status: number }> {
    const response = await sendMessage(ctx.gateway, { to, body: 'truthful test' }, { authorization: ctx.workspace.authorization })
    const [record] = (await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 100 })).filter(message => message.recipient === to)
    return { id: record.id, wamid: record.wamid, status: response.statusCode }
  }

  async function deliver (body: unknown): Promise<void> {
    expect(await ctx.gateway.emulator.sendWebhook(WABA_ID, body)).toBe(200)
    expect((await inboxDrained(ctx.gateway.app)).dead).toBe(0)
  }

  const historyOf = async (id: string) => (await ctx.gateway.app.statusEvents.history(id)).map(event => event.status)

  it('keeps played, deleted and unknown statuses (and the upstream\'s own sent) in the history without changing the record', async () => {
    const { id, wamid } = await send('15553330001')
    await deliver(envelope('messages', messagesValue({
      statuses: [status(wamid!, 'sent', '1795000001'), status(wamid!, 'read', '1795000002'), status(wamid!, 'played', '1795000003'),
        status(wamid!, 'deleted', '1795000004'), status(wamid!, 'some_future_status', '1795000005')]
    })))
    expect(await historyOf(id)).toEqual(['sent', 'read', 'played', 'deleted', 'some_future_status'])
    expect((await ctx.gateway.app.messages.get(id))!.status).toBe('read')
  })

  it('moves a record whose send ended with an unknown outcome to delivered on a later webhook, and says so in its history', async () => {
    const { id, status: answered } = await send('15550000004')
    expect(answered).toBe(502)
    expect(await ctx.gateway.app.messages.get(id)).toMatchObject({ status: 'failed', errorCode: 'upstream_timeout', wamid: null })
    await deliver(envelope('messages', messagesValue({ statuses: [status('wamid.sent-after-all', 'delivered', '1795000010', { biz_opaque_callback_data: id })] })))
    expect(await ctx.gateway.app.messages.get(id)).toMatchObject({ status: 'delivered', wamid: 'wamid.sent-after-all', errorCode: null, errorText: null })
    expect(await historyOf(id)).toEqual(['delivered'])
  })

  it('does not move a genuine refusal', async () => {
    const { id, status: answered } = await send('15550000001')
    expect(answered).toBe(502)
    await deliver(envelope('messages', messagesValue({ statuses: [status('wamid.never-sent', 'delivered', '1795000020', { biz_opaque_callback_data: id })] })))
    expect(await ctx.gateway.app.messages.get(id)).toMatchObject({ status: 'failed', errorCode: '131026' })
    expect(await historyOf(id)).toEqual(['delivered'])
  })

  it('stores senders known only by their business-scoped user id, and keeps aside a message with no sender at all', async () => {
    const bsuidOnly = textMessage('wamid.bsuid-only', 'hi', { from: undefined, from_user_id: 'US.13491208655302741918' })
    const username = textMessage('wamid.username-from', 'hi', { from: 'US.1234' })
    const nobody = textMessage('wamid.no-sender', 'hi', { from: undefined })
    await deliver(envelope('messages', messagesValue({
      contacts: [{ profile: { name: 'A', username: '@a' }, user_id: 'US.13491208655302741918' }],
      messages: [bsuidOnly, username, nobody]
    })))
    const stored = await ctx.gateway.app.inbound.list(ctx.workspace.workspaceId)
    expect(stored.find(message => message.wamid === 'wamid.bsuid-only')).toMatchObject({ from: null, fromUserId: 'US.13491208655302741918', phoneNumberId: NUMBER_ID })
    expect(stored.find(message => message.wamid === 'wamid.username-from')).toMatchObject({ from: 'US.1234', fromUserId: null })
    expect(stored.find(message => message.wamid === 'wamid.no-sender')).toBeUndefined()
    const [aside] = await ctx.gateway.app.keptAside.list({ limit: 1 })
    expect(aside).toMatchObject({ kind: 'no_sender', reason: 'no_sender', field: 'messages[2].from', routeId: NUMBER_ID })
  })

  it('keeps aside, rather than drops, a message for a number no workspace has connected', async () => {
    await deliver(envelope('messages', { ...messagesValue({ messages: [textMessage('wamid.elsewhere', 'hi')] }), metadata: { display_phone_number: '15550000000', phone_number_id: '999000999' } }))
    const [aside] = await ctx.gateway.app.keptAside.list({ limit: 1 })
    expect(aside).toMatchObject({ kind: 'unrouted', reason: 'number_not_connected', routeId: '999000999' })
    expect(JSON.parse(aside.event)).toMatchObject({ id: 'wamid.elsewhere' })
  })

  it('keeps value-level errors with their codes', async () => {
    await deliver(envelope('messages', messagesValue({ errors: [{ code: 131000, title: 'Something went wrong', message: 'Something went wrong', error_data: { details: 'x' } }] })))
    const [aside] = await ctx.gateway.app.keptAside.list({ limit: 1 })
    expect(aside).toMatchObject({ kind: 'upstream_errors', codes: '131000', routeId: NUMBER_ID })
    expect(JSON.parse(aside.event)).toEqual([expect.objectContaining({ code: 131000 })])
  })

  it('matches template events by message_template_id first, then by name and language (en-US is en_US); updates status, category and quality', async () => {
    const templates = ctx.gateway.app.templates
    const [hello] = await templates.byName(ctx.workspace.workspaceId, 'hello_world')
    expect(hello.upstreamId).toBeTruthy()
    // the id wins over a stale name
    await deliver(envelope('message_template_status_update', { event: 'PAUSED', message_template_id: Number(hello.upstreamId), message_template_name: 'renamed_since', message_template_language: 'en_US', reason: 'NONE' }))
    expect((await templates.byName(ctx.workspace.workspaceId, 'hello_world'))[0].status).toBe('PAUSED')
    // no template has this id: name and language, written with a hyphen
    await deliver(envelope('message_template_status_update', { event: 'REINSTATED', message_template_id: 1, message_template_name: 'hello_world', message_template_language: 'en-US', reason: null }))
    expect((await templates.byName(ctx.workspace.workspaceId, 'hello_world'))[0].status).toBe('APPROVED')
    await deliver(envelope('template_category_update', { message_template_id: Number(hello.upstreamId), message_template_name: 'hello_world', message_template_language: 'en_US', previous_category: 'UTILITY', new_category: 'MARKETING' }))
    await deliver(envelope('message_template_quality_update', { previous_quality_score: 'GREEN', new_quality_score: 'RED', message_template_id: Number(hello.upstreamId), message_template_name: 'hello_world', message_template_language: 'en_US' }))
    expect((await templates.byName(ctx.workspace.workspaceId, 'hello_world'))[0]).toMatchObject({ status: 'APPROVED', category: 'MARKETING', quality: 'RED' })
  })
})
