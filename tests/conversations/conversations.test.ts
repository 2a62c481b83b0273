import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver } from '../events/receiver.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
type Body = Record<string, any>

describe('conversations (CONTRACT.md 19)', () => {
  const ctx = useGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } })
  const api = async (method: 'GET' | 'POST', url: string, payload?: unknown, authorization = ctx.workspace.authorization): Promise<{ status: number, body: Body }> => {
    const answer = await ctx.gateway.app.inject({ method, url, headers: { authorization, ...(payload !== undefined && { 'content-type': 'application/json' }) }, ...(payload !== undefined && { payload: JSON.stringify(payload) }) })
    return { status: answer.statusCode, body: answer.json() }
  }
  const inbound = async (wamid: string) => await waitFor(async () => {
    const { status, body } = await api('GET', `/api/inbound.php?wamid=${encodeURIComponent(wamid)}`)
    return status === 200 && body.message
  }, { what: `inbound ${wamid} stored` })
  const inject = async (from: string, more: Record<string, unknown> = {}) => {
    const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from, ...more })
    return await inbound(wamid)
  }
  const sendText = async (to: string, body: string, extra: Record<string, unknown> = {}) => {
    const answer = await send(ctx.gateway, { to, body, ...extra }, { authorization: ctx.workspace.authorization })
    expect(answer.statusCode).toBe(200)
    return answer.json() as Body
  }

  it('reads inbound messages by API: one by id or wamid, a filtered page, 404 for an unknown one, 422 for a cursor it did not issue', async () => {
    const first = await inject('15550100001', { payload: { body: 'first' } })
    const second = await inject('15550100001', { payload: { body: 'second' } })
    expect(second).toEqual({
      id: expect.stringMatching(/^in_/), wamid: expect.any(String), from: '15550100001', from_user_id: null, phone_number_id: NUMBER, type: 'text',
      text: 'second', content: expect.objectContaining({ text: { body: 'second' } }), media: null, received_at: expect.any(String), read_at: null,
      reply_to: null, content_purged_at: null
    })
    expect((await api('GET', `/api/inbound.php?id=${first.id}`)).body.message.text).toBe('first')
    const page = await api('GET', '/api/inbound.php?from=%2B15550100001&limit=1')
    expect(page.body.messages.map((message: Body) => message.id)).toEqual([second.id])
    const next = await api('GET', `/api/inbound.php?from=15550100001&limit=1&cursor=${page.body.next_cursor}`)
    expect(next.body.messages.map((message: Body) => message.id)).toEqual([first.id])
    expect(next.body.next_cursor).toBeNull()
    expect((await api('GET', '/api/inbound.php?id=in_nope')).status).toBe(404)
    expect((await api('GET', '/api/inbound.php?cursor=bm9wZQ')).body).toMatchObject({ code: 'invalid_request', field: 'cursor' })
    expect((await api('GET', '/api/inbound.php?type=text&phone_number_id=1')).body.messages).toEqual([])
  })

  it('resolves reply_to from the workspace\'s own messages: a sent text with its client_reference, a template with its values, a received message, and a wamid it does not hold', async () => {
    const receiver = await startReceiver()
    await subscribe(ctx.gateway.app, ctx.workspace.workspaceId, receiver.url, ['message.received'])
    const from = '15550100002'
    await inject(from)
    const sent = await sendText(from, 'Your table is booked', { client_reference: 'booking-7' })
    const reply = await inject(from, { replyTo: sent.wamid, payload: { body: 'thanks' } })
    expect(reply.reply_to).toEqual({ direction: 'outbound', id: sent.id, wamid: sent.wamid, type: 'text', text: 'Your table is booked', campaign_id: null, client_reference: 'booking-7' })
    const event = await waitFor(async () => receiver.events().find(entry => entry.data.id === reply.id), { what: 'message.received of the reply' })
    expect(event.data.reply_to).toEqual(reply.reply_to)

    const template = await send(ctx.gateway, { to: from, type: 'template', template: 'order_confirmation', language: 'en_US', components: [{ type: 'body', parameters: [{ type: 'text', text: 'A-42' }] }] }, { authorization: ctx.workspace.authorization })
    expect(template.statusCode).toBe(200)
    const button = await inject(from, { replyTo: template.json().wamid, type: 'button', payload: { payload: 'ok', text: 'Looks good' } })
    expect(button.text).toBe('Looks good')
    expect(button.reply_to).toMatchObject({ direction: 'outbound', type: 'template', text: 'Your order A-42 is confirmed. Thank you for shopping with us!' })

    const answered = await inject(from, { replyTo: reply.wamid })
    expect(answered.reply_to).toEqual({ direction: 'inbound', id: reply.id, wamid: reply.wamid, type: 'text', text: 'thanks', campaign_id: null, client_reference: null })
    expect((await inject(from, { replyTo: 'wamid.someone-else' })).reply_to).toEqual({ wamid: 'wamid.someone-else', direction: null })
    await receiver.close()
  })

  it('emits flow.completed once for a completed WhatsApp Flow, its response parsed (raw when it does not parse)', async () => {
    const receiver = await startReceiver()
    await subscribe(ctx.gateway.app, ctx.workspace.workspaceId, receiver.url, ['flow.completed'])
    const from = '15550100003'
    await inject(from)
    const flow = await sendText(from, 'Book a table')
    const { wamid } = await ctx.gateway.emulator.injectFlowCompletion({ phoneNumberId: NUMBER, from, replyTo: flow.wamid, flowToken: 'tok-1', response: { party: 4 } })
    const message = await inbound(wamid)
    expect(message.text).toBeNull()
    const event = await waitFor(async () => receiver.events().find(entry => entry.type === 'flow.completed'), { what: 'flow.completed' })
    expect(event.data).toEqual({ inbound: { ...message, reply_to: expect.objectContaining({ id: flow.id }) }, flow_token: 'tok-1', response: { flow_token: 'tok-1', party: 4 } })
    const raw = await ctx.gateway.emulator.injectFlowCompletion({ phoneNumberId: NUMBER, from, replyTo: flow.wamid, response: 'not json' })
    await inbound(raw.wamid)
    const second = await waitFor(async () => receiver.events().find(entry => entry.type === 'flow.completed' && (entry.data.inbound as Body).wamid === raw.wamid), { what: 'the raw flow.completed' })
    expect(second.data).toMatchObject({ flow_token: null, response: 'not json' })
    expect(receiver.events().filter(entry => entry.type === 'flow.completed')).toHaveLength(2)
    await receiver.close()
  })

  it('marks a message read upstream, and the person\'s earlier ones with it; 404 for another\'s, 403 without messages:send, 422 too_old', async () => {
    const from = '15550100004'
    const earlier = await inject(from)
    const later = await inject(from)
    const read = await api('POST', `/api/inbound.php?id=${later.id}&action=read`)
    expect(read).toEqual({ status: 200, body: { ok: true, read_at: expect.any(String) } })
    expect(ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === later.wamid)).toEqual([{ phoneNumberId: NUMBER, messageId: later.wamid, typing: false, at: expect.any(Number) }])
    expect((await inbound(earlier.wamid)).read_at).toBe(read.body.read_at)
    const list = await api('GET', '/api/conversations.php')
    expect(list.body.conversations.find((conversation: Body) => conversation.to === from)).toMatchObject({ unread: 0 })

    expect((await api('POST', '/api/inbound.php?id=in_nope&action=read')).status).toBe(404)
    const { secret } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'reader', { scopes: ['messages:read'] })
    expect((await api('POST', `/api/inbound.php?id=${later.id}&action=read`, undefined, `Bearer ${secret}`)).body).toMatchObject({ code: 'insufficient_scope' })
    await ctx.gateway.app.database.db.execute(sql`update inbound_messages set received_at = now() - interval '31 days' where id = ${earlier.id}`)
    expect((await api('POST', `/api/inbound.php?id=${earlier.id}&action=read`)).body).toMatchObject({ code: 'too_old' })
  })

  it('shows a typing indicator for 25 s, and renews it every 20 s until a reply with until=reply', async () => {
    const from = '15550100005'
    const message = await inject(from)
    const typing = await api('POST', `/api/inbound.php?id=${message.id}&action=typing`)
    expect(typing.body).toEqual({ ok: true, read_at: expect.any(String), typing_until: expect.any(String) })
    expect(Date.parse(typing.body.typing_until) - Date.now()).toBeGreaterThan(20_000)
    expect(ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === message.wamid)).toEqual([expect.objectContaining({ typing: true })])

    const renewing = await api('POST', `/api/inbound.php?id=${message.id}&action=typing`, { until: 'reply', max_seconds: 120 })
    expect(Date.parse(renewing.body.typing_until) - Date.now()).toBeGreaterThan(100_000)
    const { db } = ctx.gateway.app.database
    const renewals = async () => rowsOf<{ id: number }>(await db.execute(sql`select id from jobs where queue = 'typing-renewals' and convert_from(payload, 'utf8') like ${`%${message.id}%`}`))
    expect(await renewals()).toHaveLength(1)
    // the renewal's time comes now rather than in 20 s
    await db.execute(sql`update jobs set run_at = now() where queue = 'typing-renewals'`)
    await waitFor(async () => ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === message.wamid).length === 3, { what: 'the renewal', timeoutMs: 15_000 })
    await waitFor(async () => (await renewals()).length === 1, { what: 'the next renewal scheduled' })
    await sendText(from, 'Here is your answer')
    await db.execute(sql`update jobs set run_at = now() where queue = 'typing-renewals'`)
    await waitFor(async () => (await renewals()).length === 0, { what: 'the renewal dropped after the reply', timeoutMs: 15_000 })
    expect(ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === message.wamid)).toHaveLength(3)
    expect((await api('POST', `/api/inbound.php?id=${message.id}&action=typing`, { until: 'reply', max_seconds: 301 })).body).toMatchObject({ code: 'invalid_request' })
  })

  it('follows the workspace\'s read_receipts policy: on_receipt marks each message as it arrives, on_reply the latest unread when the person is answered', async () => {
    const { workspaces } = ctx.gateway.app
    await workspaces.setReadReceipts(ctx.workspace.workspaceId, 'on_receipt')
    const received = await inject('15550100006')
    await waitFor(async () => (await inbound(received.wamid)).read_at !== null, { what: 'on_receipt read mark' })
    expect(ctx.gateway.emulator.readReceipts.map(receipt => receipt.messageId)).toContain(received.wamid)

    await workspaces.setReadReceipts(ctx.workspace.workspaceId, 'on_reply')
    // the policy is read at most once a second
    await new Promise(resolve => setTimeout(resolve, 1100))
    const from = '15550100007'
    const older = await inject(from)
    const latest = await inject(from)
    expect(latest.read_at).toBeNull()
    await sendText(from, 'On it')
    await waitFor(async () => (await inbound(latest.wamid)).read_at !== null, { what: 'on_reply read mark' })
    expect(ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === older.wamid)).toEqual([])
    expect((await inbound(older.wamid)).read_at).not.toBeNull()

    // replies at once, to people with an unread message and without: one read mark for each
    // person's latest, however many replies they get, and none where nothing is unread
    const [one, other, nobody] = ['15550100017', '15550100018', '15550100019']
    await inject(one)
    const [oneLatest, otherLatest] = [await inject(one), await inject(other)]
    const marksBefore = ctx.gateway.emulator.readReceipts.length
    await Promise.all([sendText(one, 'a'), sendText(one, 'b'), sendText(other, 'c'), sendText(nobody, 'd')])
    await sendText(one, 'e')
    await waitFor(async () => (await inbound(oneLatest.wamid)).read_at !== null && (await inbound(otherLatest.wamid)).read_at !== null, { what: 'the read marks of replies at once' })
    await sendText(one, 'f')
    await new Promise(resolve => setTimeout(resolve, 500))
    expect(ctx.gateway.emulator.readReceipts.slice(marksBefore).map(receipt => receipt.messageId).sort()).toEqual([oneLatest.wamid, otherLatest.wamid].sort())
    await workspaces.setReadReceipts(ctx.workspace.workspaceId, 'manual')
    // each process keeps a workspace's policy for a second: the next test must not meet on_reply
    await new Promise(resolve => setTimeout(resolve, 1100))
  })

  it('on_reply: a read mark the upstream refuses is retried by the runner until it lands', async () => {
    const { workspaces, database } = ctx.gateway.app
    const from = '15550100020'
    // a message the emulator does not know yet: it refuses the read mark (131009) until it does
    const wamid = `wamid.unknown.${Date.now()}`
    await database.db.execute(sql`insert into inbound_messages (id, workspace_id, phone_number_id, wamid, "from", type, payload, received_at)
      values (${`in_retry${Date.now()}`}, ${ctx.workspace.workspaceId}, ${NUMBER}, ${wamid}, ${from}, 'text', '{"body":"hello?"}'::jsonb, now() - interval '1 minute')`)
    await workspaces.setReadReceipts(ctx.workspace.workspaceId, 'on_reply')
    await new Promise(resolve => setTimeout(resolve, 1100))
    await sendText(from, 'Here we are')
    const queued = async () => rowsOf<{ attempts: number }>(await database.db.execute(sql`select attempts from jobs where queue = 'read-marks' and convert_from(payload, 'UTF8') like ${`%${wamid}%`}`))
    await waitFor(async () => (await queued()).length === 1, { what: 'the refused mark handed to the runner' })
    expect((await inbound(wamid)).read_at).toBeNull()
    ctx.gateway.emulator.knowInbound(NUMBER, [wamid])
    await waitFor(async () => (await inbound(wamid)).read_at !== null, { timeoutMs: 10_000, what: 'the retried read mark' })
    expect(ctx.gateway.emulator.readReceipts.filter(receipt => receipt.messageId === wamid)).toHaveLength(1)
    await waitFor(async () => (await queued()).length === 0, { what: 'the job done' })
    await workspaces.setReadReceipts(ctx.workspace.workspaceId, 'manual')
    await new Promise(resolve => setTimeout(resolve, 1100))
  })

  it('lists conversations, most recently active first, and reads a thread both ways, paged', async () => {
    const from = '15550100008'
    const hello = await inject(from, { payload: { body: 'hello' } })
    const answer = await sendText(from, 'hi there')
    // the upstream's timestamps are whole seconds: the next message is a second later than the answer
    await new Promise(resolve => setTimeout(resolve, 1100))
    const again = await inject(from, { payload: { body: 'one more thing' } })
    const list = await api('GET', '/api/conversations.php?limit=1')
    expect(list.body.conversations).toEqual([{
      to: from, recipient_user_id: null, phone_number_id: NUMBER, last_inbound_at: again.received_at, last_outbound_at: expect.any(String), unread: 2,
      service_window_expires_at: new Date(Date.parse(again.received_at) + 24 * 3600_000).toISOString()
    }])
    const rest = await api('GET', `/api/conversations.php?cursor=${list.body.next_cursor}`)
    expect(rest.body.conversations.map((conversation: Body) => conversation.to)).not.toContain(from)

    const thread = await api('GET', `/api/conversations.php?to=%2B${from}&phone_number_id=${NUMBER}&limit=2`)
    expect(thread.body.messages.map((message: Body) => [message.direction, message.id])).toEqual([['inbound', again.id], ['outbound', answer.id]])
    expect(thread.body.messages[1]).toMatchObject({ to: from, status: expect.any(String), from_phone_number_id: NUMBER })
    const older = await api('GET', `/api/conversations.php?to=${from}&limit=2&cursor=${thread.body.next_cursor}`)
    expect(older.body).toEqual({ ok: true, messages: [{ direction: 'inbound', ...hello }], next_cursor: null })
    expect((await api('GET', '/api/conversations.php?to=15550100008&recipient=US.1')).body).toMatchObject({ code: 'invalid_request' })
  })
})
