import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { api, MARKETING, messageOf, NUMBER, sendTo, sentTo, suppressionOf, UTILITY, waitForSuppression } from './helpers.js'

/** CONTRACT.md 14, opt-outs and cooldowns: the suppression list, automatic and by hand. */
describe('audience: opt-outs, cooldowns and the suppression list', () => {
  const ctx = useGateway()

  it('POST, GET and DELETE /api/suppressions.php: a manual entry, audited; 404 when not listed; 422 naming to', async () => {
    const { gateway, workspace } = ctx
    const added = await api(gateway, workspace, 'POST', '/api/suppressions.php', { to: '+15557000001' })
    expect(added.statusCode).toBe(200)
    expect(added.json().suppression).toMatchObject({ to: '15557000001', reason: 'manual' })
    const listed = (await api(gateway, workspace, 'GET', '/api/suppressions.php')).json()
    expect(listed).toMatchObject({ ok: true, next_cursor: null })
    expect(listed.suppressions.map((row: { to: string }) => row.to)).toContain('15557000001')
    expect((await api(gateway, workspace, 'DELETE', '/api/suppressions.php?to=15557000001')).json()).toEqual({ ok: true })
    expectEnvelope(await api(gateway, workspace, 'DELETE', '/api/suppressions.php?to=15557000001'), 404, 'not_found')
    expect(expectEnvelope(await api(gateway, workspace, 'POST', '/api/suppressions.php', { to: 'nope' }), 422, 'invalid_request').field).toBe('to')
    const actions = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 10 })).map(entry => entry.action)
    expect(actions).toEqual(expect.arrayContaining(['suppression.added', 'suppression.removed']))
    const entry = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 10 })).find(row => row.action === 'suppression.added')
    expect(entry?.targetId).toMatch(/^sup_/)
  })

  it('pages with next_cursor; a cursor not issued is a 422 naming cursor', async () => {
    const { gateway, workspace } = ctx
    for (const to of ['15557100001', '15557100002', '15557100003']) await api(gateway, workspace, 'POST', '/api/suppressions.php', { to })
    const first = (await api(gateway, workspace, 'GET', '/api/suppressions.php?limit=2')).json()
    expect(first.suppressions).toHaveLength(2)
    const second = (await api(gateway, workspace, 'GET', `/api/suppressions.php?limit=2&cursor=${first.next_cursor}`)).json()
    const seen = [...first.suppressions, ...second.suppressions].map((row: { to: string }) => row.to)
    expect(new Set(seen).size).toBe(seen.length)
    expect(expectEnvelope(await api(gateway, workspace, 'GET', '/api/suppressions.php?cursor=bogus'), 422, 'invalid_request').field).toBe('cursor')
  })

  it('a suppressed recipient: MARKETING templates 422 recipient_opted_out (queued too), nothing sent; utility templates and free-form replies still go', async () => {
    const { gateway, workspace } = ctx
    const to = '15557200001'
    await api(gateway, workspace, 'POST', '/api/suppressions.php', { to })
    expectEnvelope(await sendTo(gateway, workspace, to, MARKETING), 422, 'recipient_opted_out')
    expectEnvelope(await sendTo(gateway, workspace, to, MARKETING, { prefer: 'respond-async' }), 422, 'recipient_opted_out')
    expect(sentTo(gateway, to)).toBe(0)
    expect((await sendTo(gateway, workspace, to, UTILITY)).statusCode).toBe(200)
    expect((await sendTo(gateway, workspace, to, { body: 'a reply' })).statusCode).toBe(200)
  })

  it('upstream 131050 on a synchronous send suppresses the recipient (opt_out_131050); the next MARKETING send is refused before the upstream', async () => {
    const { gateway, workspace } = ctx
    const to = '15550000009'
    expect((await sendTo(gateway, workspace, to, MARKETING)).statusCode).toBe(502)
    expect(await waitForSuppression(gateway, workspace, to)).toMatchObject({ reason: 'opt_out_131050' })
    const before = gateway.emulator.requests.length
    expectEnvelope(await sendTo(gateway, workspace, to, MARKETING), 422, 'recipient_opted_out')
    expect(gateway.emulator.requests.length).toBe(before)
  })

  it('131050 in a failed status suppresses too', async () => {
    const { gateway, workspace } = ctx
    const to = '15557300001'
    gateway.emulator.setStatusOptions({ recipient: to }, { failWith: { code: 131050 } })
    expect((await sendTo(gateway, workspace, to, MARKETING)).statusCode).toBe(200)
    expect(await waitForSuppression(gateway, workspace, to)).toMatchObject({ reason: 'opt_out_131050' })
  })

  it('user_preferences stop suppresses, resume removes', async () => {
    const { gateway, workspace } = ctx
    const to = '15557400001'
    expect(await gateway.emulator.sendUserPreference({ phoneNumberId: NUMBER, waId: to, value: 'stop' })).toBe(200)
    expect(await waitForSuppression(gateway, workspace, to)).toMatchObject({ reason: 'user_preferences' })
    expect(await gateway.emulator.sendUserPreference({ phoneNumberId: NUMBER, waId: to, value: 'resume' })).toBe(200)
    await waitForSuppression(gateway, workspace, to, false)
  })

  it('an inbound text equal to an opt-out keyword (trimmed, any case) suppresses its sender; other texts do not', async () => {
    const { gateway, workspace } = ctx
    await gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557500001', payload: { body: '  sToP ' } })
    await gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15557500002', payload: { body: 'please stop calling me' } })
    expect(await waitForSuppression(gateway, workspace, '15557500001')).toMatchObject({ reason: 'keyword' })
    await waitFor(async () => (await gateway.app.inbound.list(workspace.workspaceId, { limit: 100 })).some(message => message.from === '15557500002'), { what: 'the other text stored' })
    expect(await suppressionOf(gateway, workspace, '15557500002')).toBeUndefined()
  })

  it('upstream 131049 cools the recipient down for 24 h: MARKETING 422 recipient_cooling_down; a queued one is held (cooldown)', async () => {
    const { gateway, workspace } = ctx
    const to = '15550000010'
    expect((await sendTo(gateway, workspace, to, MARKETING)).statusCode).toBe(200)
    const until = await waitFor(async () => await gateway.app.suppressions.cooldownOf(workspace.workspaceId, to) ?? undefined, { timeoutMs: 15_000, what: 'cooldown' })
    expect(until.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000)
    expectEnvelope(await sendTo(gateway, workspace, to, MARKETING), 422, 'recipient_cooling_down')
    const queued = await sendTo(gateway, workspace, to, MARKETING, { prefer: 'respond-async' })
    expect(queued.statusCode).toBe(202)
    const held = await waitFor(async () => { const message = await messageOf(gateway, workspace, queued.json().id); return message.status === 'held' ? message : undefined }, { what: 'held' })
    expect(held).toMatchObject({ status: 'held', held_reason: 'cooldown' })
    expect((await sendTo(gateway, workspace, to, UTILITY)).statusCode).toBe(200)
  })

  it('a queued MARKETING send whose recipient opts out while it waits ends failed with opted_out', async () => {
    const { gateway, workspace } = ctx
    const to = '15557600001'
    // hold the send behind a cooldown, opt the recipient out, then end the cooldown
    await gateway.app.database.db.execute(sql`insert into cooldowns (workspace_id, recipient, until) values (${workspace.workspaceId}, ${to}, now() + interval '1 hour')`)
    const queued = await sendTo(gateway, workspace, to, MARKETING, { prefer: 'respond-async' })
    expect(queued.statusCode).toBe(202)
    await waitFor(async () => (await messageOf(gateway, workspace, queued.json().id)).status === 'held', { what: 'held' })
    await api(gateway, workspace, 'POST', '/api/suppressions.php', { to })
    await gateway.app.database.db.execute(sql`delete from cooldowns where recipient = ${to}`)
    await gateway.app.database.db.execute(sql`update jobs set run_at = now() where status = 'ready' and payload = convert_to(${queued.json().id}, 'UTF8')`)
    const failed = await waitFor(async () => { const message = await messageOf(gateway, workspace, queued.json().id); return message.status === 'failed' ? message : undefined }, { timeoutMs: 15_000, what: 'failed' })
    expect(failed.error).toMatchObject({ code: 'opted_out' })
    expect(sentTo(gateway, to)).toBe(0)
  })

  it('a key without suppressions:write gets 403 insufficient_scope on POST and DELETE', async () => {
    const { gateway, workspace } = ctx
    const { secret } = await gateway.app.keys.create(workspace.workspaceId, 'read only', { scopes: ['messages:read'] })
    const response = await gateway.app.inject({ method: 'POST', url: '/api/suppressions.php', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, payload: '{"to":"15557700001"}' })
    expectEnvelope(response, 403, 'insufficient_scope')
  })
})
