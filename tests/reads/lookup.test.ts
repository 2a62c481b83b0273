import { describe, expect, it } from 'vitest'
import { connectedWorkspace, type ConnectedWorkspace } from '../helpers/gateway.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { read } from './helpers.js'

describe('GET /api/messages.php?id= and ?wamid=: a message and its whole history', () => {
  let other: ConnectedWorkspace
  const ctx = useGateway({ setup: async gateway => { other = await connectedWorkspace(gateway) } })

  it('every 200 names its record, and the record reads back by id and by wamid with the webhooks in its history', async () => {
    const sent = await send(ctx.gateway, { to: '+15552220001', body: 'Hello', client_reference: 'order-17' }, { authorization: ctx.workspace.authorization })
    expect(sent.statusCode).toBe(200)
    const { id, wamid } = sent.json()
    expect(id).toMatch(/^msg_/)
    expect(Object.keys(sent.json())).toEqual(['ok', 'id', 'wamid', 'status'])

    const byId = await waitFor(async () => {
      const answer = (await read(ctx.gateway, ctx.workspace.authorization, { id })).json()
      return answer.message.status === 'read' && answer.message.history.length === 4 && answer
    }, { what: 'the read status in the history' })
    const message = byId.message
    expect(message).toMatchObject({
      id, wamid, to: '15552220001', from_phone_number_id: ctx.workspace.connection.phone_numbers[0].phone_number_id, type: 'text',
      status: 'read', error: null, attempts: 1, client_reference: 'order-17'
    })
    expect(Object.keys(message)).toEqual(['id', 'wamid', 'to', 'recipient_user_id', 'from_phone_number_id', 'type', 'status', 'held_reason', 'error', 'attempts', 'client_reference', 'pricing', 'content_purged_at', 'created_at', 'updated_at', 'history'])
    // our own step (pending) and the upstream's events, its own `sent` standing for ours (tests/house/history.test.ts)
    expect(message.history.map((step: { status: string }) => step.status)).toEqual(['pending', 'sent', 'delivered', 'read'])
    const times = message.history.map((step: { at: string }) => Date.parse(step.at))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(message.history.every((step: { error: unknown }) => step.error === null)).toBe(true)

    const byWamid = (await read(ctx.gateway, ctx.workspace.authorization, { wamid })).json()
    expect(byWamid).toEqual(byId)
  })

  it('a failure is in the record and in the history, its code always a string', async () => {
    const refused = await send(ctx.gateway, { to: '15550000001', body: 'Hello' }, { authorization: ctx.workspace.authorization })
    const envelope = expectEnvelope(refused, 502, 'upstream_error')
    expect(envelope.id).toMatch(/^msg_/)
    const { message } = (await read(ctx.gateway, ctx.workspace.authorization, { id: envelope.id as string })).json()
    expect(message.status).toBe('failed')
    expect(message.wamid).toBeNull()
    expect(message.error).toEqual({ code: '131026', message: expect.any(String) })
    expect(message.history.map((step: { status: string }) => step.status)).toEqual(['pending', 'failed'])
    expect(message.history[1].error.code).toBe('131026')

    const late = await send(ctx.gateway, { to: '15550000003', body: 'Hello' }, { authorization: ctx.workspace.authorization })
    const { id } = late.json()
    const failed = await waitFor(async () => {
      const answer = (await read(ctx.gateway, ctx.workspace.authorization, { id })).json()
      return answer.message.status === 'failed' && answer.message
    }, { what: 'the failed webhook' })
    expect(failed.error.code).toBe('131047')
    expect(failed.history.at(-1)).toEqual({ status: 'failed', at: expect.any(String), error: { code: '131047', message: expect.any(String) } })
  })

  it('another workspace\'s message is a 404, by id and by wamid, as is an unknown one', async () => {
    const { id, wamid } = (await send(ctx.gateway, { to: '15552220002', body: 'Hello' }, { authorization: ctx.workspace.authorization })).json()
    expectEnvelope(await read(ctx.gateway, other.authorization, { id }), 404, 'not_found')
    expectEnvelope(await read(ctx.gateway, other.authorization, { wamid }), 404, 'not_found')
    expectEnvelope(await read(ctx.gateway, ctx.workspace.authorization, { id: 'msg_unknown' }), 404, 'not_found')
  })

  it('asks the same key checks as sending: 401 without a key, 403 on a plan without API access', async () => {
    expect((await ctx.gateway.app.inject({ method: 'GET', url: '/api/messages.php?id=msg_x' })).statusCode).toBe(401)
    const starter = await connectedWorkspace(ctx.gateway, 'starter')
    expectEnvelope(await read(ctx.gateway, starter.authorization, {}), 403, 'plan_upgrade_required')
  })
})
