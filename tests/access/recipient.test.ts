import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { publicInbound } from '../../src/resources/inbound.js'
import { publicMessage } from '../../src/resources/message.js'
import { Browser, userIn } from '../dashboard/helpers.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope, form, multipart, received } from '../messages/helpers.js'
import { handOver, registeredHoursAgo, settled } from '../queue/helpers.js'

const NUMBER = defaultAccount().phoneNumbers[0].id
const HOUR_MS = 60 * 60_000
let ids = 0
/** a fresh business-scoped user id per test: nothing one test stores touches another */
const userId = () => `US.${Date.now()}${String(ids++).padStart(4, '0')}`

/** CONTRACT.md 16: a send may name its recipient by a business-scoped user id (`recipient`) instead of `to`. */
describe('business-scoped user ids', () => {
  let receiver: Receiver
  const ctx = useGateway({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true' },
    setup: async (gateway, workspace) => {
      receiver = await startReceiver()
      await subscribe(gateway.app, workspace!.workspaceId, receiver.url)
    }
  })
  afterAll(async () => { await receiver?.close() })

  const auth = () => ({ authorization: ctx.workspace.authorization })
  const read = async (id: string) => await ctx.gateway.app.inject({ method: 'GET', url: `/api/messages.php?id=${id}`, headers: auth() })
  const wrote = async (fromUserId: string, hoursAgo: number) => {
    await ctx.gateway.app.inbound.insert({ workspaceId: ctx.workspace.workspaceId, phoneNumberId: NUMBER, wamid: `wamid.BSUID${ids++}`, from: null, fromUserId, type: 'text', payload: { text: { body: 'hi' } }, receivedAt: new Date(Date.now() - hoursAgo * HOUR_MS) })
  }

  describe('exactly one of to and recipient', () => {
    it('refuses both, neither, and a malformed user id with a 422 naming the fields', async () => {
      const both = expectEnvelope(await send(ctx.gateway, { to: '15551230001', recipient: userId(), body: 'Hi' }, auth()), 422, 'invalid_request')
      expect(both.error).toMatch(/\bto\b.*\brecipient\b/)
      const neither = expectEnvelope(await send(ctx.gateway, { body: 'Hi' }, auth()), 422, 'invalid_request')
      expect(neither.error).toMatch(/\bto\b.*\brecipient\b/)
      for (const bad of ['us.123', 'US.', 'US123', 'USA.123', 'US.a b', `US.${'1'.repeat(129)}`, '15551230001']) {
        const response = expectEnvelope(await send(ctx.gateway, { recipient: bad, body: 'Hi' }, auth()), 422, 'invalid_request')
        expect(response.field, bad).toBe('recipient')
        expect(response.error).toMatch(/business-scoped user id/)
      }
    })

    it('refuses both in a form and in multipart too, and nothing is sent', async () => {
      const before = ctx.gateway.emulator.sentMessages.length
      const urlencoded = form(`to=15551230002&recipient=${userId()}&body=Hi`)
      expectEnvelope(await send(ctx.gateway, urlencoded.payload, { ...auth(), headers: urlencoded.headers }), 422, 'invalid_request')
      const parts = multipart([['recipient', userId()], ['to', '15551230002'], ['body', 'Hi']])
      expectEnvelope(await send(ctx.gateway, parts.payload, { ...auth(), headers: parts.headers }), 422, 'invalid_request')
      expect(ctx.gateway.emulator.sentMessages.length).toBe(before)
    })
  })

  describe('a send by recipient', () => {
    it('goes upstream as recipient (no to); the record, M and the list carry recipient_user_id with to null; its status webhooks move it', async () => {
      const id = userId()
      const response = await send(ctx.gateway, { recipient: id, body: 'Hello by user id' }, auth())
      expect(response.statusCode, response.body).toBe(200)
      const { id: messageId, wamid } = response.json()
      const upstream = received(ctx.gateway, wamid)
      expect(upstream).toMatchObject({ messaging_product: 'whatsapp', recipient: id, type: 'text', text: { body: 'Hello by user id' } })
      expect(upstream).not.toHaveProperty('to')

      // the emulator's status webhooks name the user by recipient_user_id only, and still match the record
      const message = await waitFor(async () => {
        const body = (await read(messageId)).json().message
        return body?.status === 'read' ? body : undefined
      }, { what: 'the record read' })
      expect(message).toMatchObject({ id: messageId, wamid, to: null, recipient_user_id: id, status: 'read' })
      expect(message.history.map((step: { status: string }) => step.status)).toEqual(expect.arrayContaining(['sent', 'delivered', 'read']))
      const statusPayloads = ctx.gateway.emulator.webhookDeliveries.flatMap(delivery => JSON.stringify(delivery.body).includes(wamid) ? [JSON.stringify(delivery.body)] : [])
      expect(statusPayloads.length).toBeGreaterThan(0)
      for (const payload of statusPayloads) {
        expect(payload).toContain(`"recipient_user_id":"${id}"`)
        expect(payload).not.toContain('recipient_id')
      }

      const list = await ctx.gateway.app.inject({ method: 'GET', url: `/api/messages.php?recipient_user_id=${id}`, headers: auth() })
      expect(list.json().messages).toEqual([expect.objectContaining({ id: messageId, to: null, recipient_user_id: id })])
      // as outbound messages list prints it
      expect(publicMessage((await ctx.gateway.app.messages.get(messageId))!)).toMatchObject({ to: null, recipient_user_id: id })
      const bad = await ctx.gateway.app.inject({ method: 'GET', url: '/api/messages.php?recipient_user_id=nope', headers: auth() })
      expect(expectEnvelope(bad, 422, 'invalid_request').field).toBe('recipient_user_id')
      // a send by phone number keeps to and gets recipient_user_id null
      const byPhone = await send(ctx.gateway, { to: '+15551230003', body: 'Hello by number' }, auth())
      expect((await read(byPhone.json().id)).json().message).toMatchObject({ to: '15551230003', recipient_user_id: null })
    })

    it('its events carry recipient_user_id and to null', async () => {
      const id = userId()
      const response = await send(ctx.gateway, { recipient: id, body: 'events' }, auth())
      expect(response.statusCode).toBe(200)
      const messageId = response.json().id
      const event = await waitFor(async () => receiver.events().find(candidate => candidate.type === 'message.sent' && candidate.data.id === messageId), { what: 'message.sent' })
      expect(event.data).toMatchObject({ id: messageId, to: null, recipient_user_id: id, status: 'sent' })
    })

    it('works from a form and from multipart', async () => {
      const [first, second] = [userId(), userId()]
      const urlencoded = form(`recipient=${first}&body=From+a+form`)
      const viaForm = await send(ctx.gateway, urlencoded.payload, { ...auth(), headers: urlencoded.headers })
      expect(viaForm.statusCode, viaForm.body).toBe(200)
      expect(received(ctx.gateway, viaForm.json().wamid)).toMatchObject({ recipient: first })
      const parts = multipart([['recipient', second], ['body', 'From multipart']])
      const viaMultipart = await send(ctx.gateway, parts.payload, { ...auth(), headers: parts.headers })
      expect(viaMultipart.statusCode, viaMultipart.body).toBe(200)
      expect(received(ctx.gateway, viaMultipart.json().wamid)).toMatchObject({ recipient: second })
    })

    it('is queued with Prefer: respond-async and dispatched by recipient', async () => {
      const id = userId()
      const response = await handOver(ctx.gateway, ctx.workspace, { recipient: id })
      expect(response.statusCode, response.body).toBe(202)
      const record = await settled(ctx.gateway, response.json().id)
      expect(record.status).not.toBe('failed')
      expect(received(ctx.gateway, record.wamid!)).toMatchObject({ recipient: id })
      expect((await read(record.id)).json().message).toMatchObject({ to: null, recipient_user_id: id })
    })

    it('is idempotent: the same key and recipient replays; the same key naming the number instead is another body', async () => {
      const id = userId()
      const headers = { 'idempotency-key': `bsuid-${id}` }
      const first = await send(ctx.gateway, { recipient: id, body: 'once' }, { ...auth(), headers })
      expect(first.statusCode).toBe(200)
      const sentBefore = ctx.gateway.emulator.sentMessages.length
      const again = await send(ctx.gateway, { recipient: id, body: 'once' }, { ...auth(), headers })
      expect(again.statusCode).toBe(200)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.body).toBe(first.body)
      expectEnvelope(await send(ctx.gateway, { to: '15551230004', body: 'once' }, { ...auth(), headers }), 422, 'idempotency_mismatch')
      expect(ctx.gateway.emulator.sentMessages.length).toBe(sentBefore)
    })
  })

  describe('the service window by user id', () => {
    beforeAll(async () => { await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25) })
    afterAll(async () => { await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 1) })

    it('refuses a free-form send to a user id that has not written in 24 h; an inbound message from it opens the window for it alone', async () => {
      const [id, other] = [userId(), userId()]
      expectEnvelope(await send(ctx.gateway, { recipient: id, body: 'Hi' }, auth()), 422, 'outside_service_window')
      await wrote(id, 25)
      expectEnvelope(await send(ctx.gateway, { recipient: id, body: 'Hi' }, auth()), 422, 'outside_service_window')
      // through the real webhook path: a message with from_user_id and no phone field
      const { wamid } = await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, fromUserId: id })
      const stored = await waitFor(async () => (await ctx.gateway.app.inbound.list(ctx.workspace.workspaceId, { limit: 50 })).find(message => message.wamid === wamid), { what: 'the inbound message stored' })
      expect(stored).toMatchObject({ from: null, fromUserId: id })
      // as outbound inbound list prints it
      expect(publicInbound(stored)).toMatchObject({ from: null, from_user_id: id })
      const inside = await send(ctx.gateway, { recipient: id, body: 'Hi' }, auth())
      expect(inside.statusCode, inside.body).toBe(200)
      expectEnvelope(await send(ctx.gateway, { recipient: other, body: 'Hi' }, auth()), 422, 'outside_service_window')
      expectEnvelope(await handOver(ctx.gateway, ctx.workspace, { recipient: other }), 422, 'outside_service_window')
      // a template is never refused
      expect((await send(ctx.gateway, { recipient: other, type: 'template', template: 'hello_world' }, auth())).statusCode).toBe(200)
    })

    it('a user id that wrote does not open the window of a phone number, nor the reverse', async () => {
      const id = userId()
      await ctx.gateway.app.inbound.insert({ workspaceId: ctx.workspace.workspaceId, phoneNumberId: NUMBER, wamid: `wamid.BSUIDPHONE${ids++}`, from: '15551230005', fromUserId: id, type: 'text', payload: {}, receivedAt: new Date() })
      expect((await send(ctx.gateway, { recipient: id, body: 'Hi' }, auth())).statusCode).toBe(200)
      expect((await send(ctx.gateway, { to: '15551230005', body: 'Hi' }, auth())).statusCode).toBe(200)
      await wrote(userId(), 1)
      expectEnvelope(await send(ctx.gateway, { to: '15551230006', body: 'Hi' }, auth()), 422, 'outside_service_window')
    })
  })

  describe('user_changed_user_id', () => {
    beforeAll(async () => { await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 25) })
    afterAll(async () => { await registeredHoursAgo(ctx.gateway, ctx.workspace.workspaceId, 1) })

    it('links the old id to the new one: sends to the old id go to the new one, and what the old id wrote keeps the window open', async () => {
      const [old, changed] = [userId(), userId()]
      await wrote(old, 2)
      await ctx.gateway.emulator.injectInbound({
        phoneNumberId: NUMBER,
        fromUserId: changed,
        type: 'system',
        payload: { body: 'User changed their business-scoped user id', type: 'user_changed_user_id', previous_user_id: old, user_id: changed }
      })
      await waitFor(async () => await ctx.gateway.app.userIds.current(ctx.workspace.workspaceId, old) === changed, { what: 'the link' })

      // the new id is inside the window its old id opened
      const toNew = await send(ctx.gateway, { recipient: changed, body: 'Hi' }, auth())
      expect(toNew.statusCode, toNew.body).toBe(200)
      // a send naming the old id reaches the new one
      const toOld = await send(ctx.gateway, { recipient: old, body: 'Hi again' }, auth())
      expect(toOld.statusCode, toOld.body).toBe(200)
      expect(received(ctx.gateway, toOld.json().wamid)).toMatchObject({ recipient: changed })
      expect((await read(toOld.json().id)).json().message).toMatchObject({ to: null, recipient_user_id: changed })

      // a second change follows the chain; a repeated delivery changes nothing
      const third = userId()
      await ctx.gateway.emulator.sendWebhook(defaultAccount().wabaId, systemChange(changed, third))
      await ctx.gateway.emulator.sendWebhook(defaultAccount().wabaId, systemChange(changed, third))
      await waitFor(async () => await ctx.gateway.app.userIds.current(ctx.workspace.workspaceId, old) === third, { what: 'the second link' })
      const queued = await handOver(ctx.gateway, ctx.workspace, { recipient: old })
      expect(queued.statusCode, queued.body).toBe(202)
      const record = await settled(ctx.gateway, queued.json().id)
      expect(received(ctx.gateway, record.wamid!)).toMatchObject({ recipient: third })
    })

    it('an id changed back becomes current again (no loop)', async () => {
      const [a, b] = [userId(), userId()]
      await ctx.gateway.emulator.sendWebhook(defaultAccount().wabaId, systemChange(a, b))
      await waitFor(async () => await ctx.gateway.app.userIds.current(ctx.workspace.workspaceId, a) === b, { what: 'a → b' })
      await ctx.gateway.emulator.sendWebhook(defaultAccount().wabaId, systemChange(b, a))
      await waitFor(async () => await ctx.gateway.app.userIds.current(ctx.workspace.workspaceId, b) === a, { what: 'b → a' })
      expect(await ctx.gateway.app.userIds.current(ctx.workspace.workspaceId, a)).toBe(a)
    })
  })

  it('the dashboard lists and shows a message sent to a user id by that id, and finds it by it', async () => {
    const id = userId()
    const response = await send(ctx.gateway, { recipient: id, body: 'for the dashboard' }, auth())
    expect(response.statusCode).toBe(200)
    const browser = await Browser.signIn(ctx.gateway.app, await userIn(ctx.gateway.app, ctx.workspace.workspaceId))
    const list = await browser.get(`/dashboard/messages?q=${id}`)
    expect(list.body).toContain(`data-field="to">${id}<`)
    expect(list.body).not.toContain(`+${id}`)
    const page = await browser.get(`/dashboard/messages/${response.json().id}`)
    expect(page.body).toContain(`Message to ${id}`)

    // the compose form's To takes a user id as well and sends it as recipient
    const other = userId()
    const composed = await browser.post('/dashboard/compose', { phone_number_id: NUMBER, to: ` ${other} `, type: 'text', body: 'from the dashboard' }, { from: '/dashboard/compose' })
    expect(composed.statusCode).toBeLessThan(400)
    const [record] = await ctx.gateway.app.messages.list(ctx.workspace.workspaceId, { limit: 1 })
    expect(record).toMatchObject({ recipient: other, status: 'sent', apiKeyId: null })
    expect(received(ctx.gateway, record.wamid!)).toMatchObject({ recipient: other })
  })
})

/** A signed delivery of a system message saying a user's id changed, as the upstream sends it (no contacts array). */
function systemChange (previous: string, current: string) {
  return {
    object: 'whatsapp_business_account',
    entry: [{
      id: defaultAccount().wabaId,
      changes: [{
        field: 'messages',
        value: {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: '15550783881', phone_number_id: NUMBER },
          messages: [{ from_user_id: current, id: `wamid.CHANGE${previous}${current}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'system', system: { body: 'User changed their id', type: 'user_changed_user_id', previous_user_id: previous, user_id: current } }]
        }
      }]
    }]
  }
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/11'

/** Pacing per (number, recipient) keys on the user id when there is no phone number: in the process, and shared through Redis. */
describe.each([
  ['in the process', {}],
  ['through Redis', { REDIS_URL }]
])('pacing per recipient by user id, %s', (_pacer, env: Record<string, string>) => {
  const ctx = useGateway({ env: { PAIR_RATE_BURST: '2', PAIR_RATE_INTERVAL_MS: '3000', ...env }, setup: gateway => { gateway.emulator.setStatusOptions('global', { statuses: [] }) } })

  it('gives each user id its own bucket, and waits out the bucket of one', async () => {
    const [a, b] = [userId(), userId()]
    const sendTo = async (recipient: string) => {
      const response = await send(ctx.gateway, { recipient, body: 'paced' }, { authorization: ctx.workspace.authorization })
      expect(response.statusCode, response.body).toBe(200)
      return ctx.gateway.emulator.sentMessages.find(message => message.wamid === response.json().wamid)!.at
    }
    const first = await sendTo(a)
    await sendTo(a)
    await sendTo(b)
    const fourth = await sendTo(b)
    // two ids, two buckets of two: none of the four waited for a token
    expect(fourth - first).toBeLessThan(2500)
    // a's third waits for its token (one per 3 s)
    expect(await sendTo(a) - first).toBeGreaterThanOrEqual(2500)
  })
})
