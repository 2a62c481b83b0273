import { describe, expect, it } from 'vitest'
import { suppressionsAdd, suppressionsList, suppressionsRemove } from '../../src/cli/commands/suppressions.js'
import { UsageError } from '../../src/cli/flags.js'
import type { Runtime } from '../../src/runtime.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { api, MARKETING, NUMBER, sendTo, sentTo } from './helpers.js'

let ids = 0
/** a fresh business-scoped user id per use */
const userId = () => `US.sup${Date.now()}${String(ids++).padStart(4, '0')}`

/** CONTRACT.md 14 and 16: suppressions by business-scoped user id, and the recipient's field named in refusals. */
describe('audience: suppressions by business-scoped user id', () => {
  const ctx = useGateway()
  const byUserId = async (id: string) => (await api(ctx.gateway, ctx.workspace, 'GET', `/api/suppressions.php?recipient=${id}`)).json().suppressions[0] as Record<string, unknown> | undefined
  const waitForUserId = async (id: string, present = true) => await waitFor(async () => {
    const found = await byUserId(id)
    return present ? found : found === undefined ? true : undefined
  }, { timeoutMs: 15_000, what: `suppression of ${id} ${present ? 'added' : 'removed'}` })
  const marketingTo = async (recipient: string) => await send(ctx.gateway, { recipient, ...MARKETING }, { authorization: ctx.workspace.authorization })

  it('an opt-out keyword from an inbound message with only from_user_id suppresses that user id; a MARKETING send to it is 422 naming recipient', async () => {
    const id = userId()
    await ctx.gateway.emulator.injectInbound({ phoneNumberId: NUMBER, fromUserId: id, payload: { body: ' Stop' } })
    expect(await waitForUserId(id)).toMatchObject({ to: null, recipient_user_id: id, reason: 'keyword' })
    const refused = expectEnvelope(await marketingTo(id), 422, 'recipient_opted_out')
    expect(refused.field).toBe('recipient')
    expect(ctx.gateway.emulator.sentMessages.filter(message => message.payload.recipient === id)).toHaveLength(0)
  })

  it('a refusal of a send by phone number names to', async () => {
    const to = '15559100001'
    await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { to })
    expect(expectEnvelope(await sendTo(ctx.gateway, ctx.workspace, to, MARKETING), 422, 'recipient_opted_out').field).toBe('to')
    expect(sentTo(ctx.gateway, to)).toBe(0)
  })

  it('user_preferences by user_id: stop suppresses the user id, resume removes it', async () => {
    const id = userId()
    expect(await ctx.gateway.emulator.sendUserPreference({ phoneNumberId: NUMBER, userId: id, value: 'stop' })).toBe(200)
    expect(await waitForUserId(id)).toMatchObject({ recipient_user_id: id, reason: 'user_preferences' })
    expect(await ctx.gateway.emulator.sendUserPreference({ phoneNumberId: NUMBER, userId: id, value: 'resume' })).toBe(200)
    await waitForUserId(id, false)
  })

  it('POST, GET and DELETE take recipient; both to and recipient, or a malformed one, is a 422 naming the field', async () => {
    const id = userId()
    const added = await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { recipient: id })
    expect(added.statusCode).toBe(200)
    expect(added.json().suppression).toMatchObject({ to: null, recipient_user_id: id, reason: 'manual' })
    expect(await byUserId(id)).toMatchObject({ recipient_user_id: id })
    expect(expectEnvelope(await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { recipient: 'us.lower' }), 422, 'invalid_request').field).toBe('recipient')
    expect(expectEnvelope(await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { to: '15559200001', recipient: id }), 422, 'invalid_request').field).toBe('to')
    expect(expectEnvelope(await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', {}), 422, 'invalid_request').field).toBe('to')
    expect((await api(ctx.gateway, ctx.workspace, 'DELETE', `/api/suppressions.php?recipient=${id}`)).json()).toEqual({ ok: true })
    expectEnvelope(await api(ctx.gateway, ctx.workspace, 'DELETE', `/api/suppressions.php?recipient=${id}`), 404, 'not_found')
  })

  it('a + written raw in ?to= (decoded as a space) is taken as the +', async () => {
    await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { to: '+15559300001' })
    const listed = (await api(ctx.gateway, ctx.workspace, 'GET', '/api/suppressions.php?to=+15559300001')).json()
    expect(listed.suppressions).toEqual([expect.objectContaining({ to: '15559300001', recipient_user_id: null })])
    expect((await api(ctx.gateway, ctx.workspace, 'DELETE', '/api/suppressions.php?to=+15559300001')).json()).toEqual({ ok: true })
    expect(expectEnvelope(await api(ctx.gateway, ctx.workspace, 'GET', '/api/suppressions.php?to=+1x'), 422, 'invalid_request').field).toBe('to')
  })

  it('user_changed_user_id carries a suppression over to the new id', async () => {
    const [old, changed] = [userId(), userId()]
    await api(ctx.gateway, ctx.workspace, 'POST', '/api/suppressions.php', { recipient: old })
    await ctx.gateway.emulator.injectInbound({
      phoneNumberId: NUMBER,
      fromUserId: changed,
      type: 'system',
      payload: { body: 'User changed their business-scoped user id', type: 'user_changed_user_id', previous_user_id: old, user_id: changed }
    })
    expect(await waitForUserId(changed)).toMatchObject({ recipient_user_id: changed, reason: 'manual' })
    expect(expectEnvelope(await marketingTo(changed), 422, 'recipient_opted_out').field).toBe('recipient')
    // a send naming the old id goes to the new one, suppressed as well
    expectEnvelope(await marketingTo(old), 422, 'recipient_opted_out')
  })

  it('the CLI takes --recipient for list, add and remove, and refuses --to with --recipient', async () => {
    const runtime = { stores: ctx.gateway.app } as unknown as Runtime
    const { config } = ctx.gateway.app
    const workspace = ctx.workspace.workspaceId
    const id = userId()
    expect(await suppressionsAdd.run({ workspace, recipient: id }, runtime, config)).toMatchObject({ ok: true, suppression: { to: null, recipient_user_id: id, reason: 'manual' } })
    expect(await suppressionsList.run({ workspace, recipient: id, limit: 10 }, runtime, config)).toEqual({ suppressions: [expect.objectContaining({ recipient_user_id: id })] })
    await expect(suppressionsAdd.run({ workspace, to: '15559400001', recipient: id }, runtime, config)).rejects.toThrow(UsageError)
    await expect(suppressionsAdd.run({ workspace }, runtime, config)).rejects.toThrow(UsageError)
    expect(await suppressionsRemove.run({ workspace, recipient: id }, runtime, config)).toEqual({ ok: true })
    expect(await suppressionsAdd.run({ workspace, to: '+15559400002' }, runtime, config)).toMatchObject({ suppression: { to: '15559400002', recipient_user_id: null } })
  })
})
