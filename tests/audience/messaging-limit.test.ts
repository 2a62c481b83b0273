import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { refreshNumbers } from '../../src/connections/refresh.js'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { api, messageOf, NUMBER, sendTo, sentTo, UTILITY, WABA } from './helpers.js'

async function limitsOf (gateway: TestGateway, workspace: ConnectedWorkspace) {
  const response = await api(gateway, workspace, 'GET', '/api/limits.php')
  expect(response.statusCode).toBe(200)
  return response.json().phone_numbers as Array<{ phone_number_id: string, messaging_limit: { tier: string, limit: number | null, used_24h: number, available: number | null, next_slot_at: string | null } }>
}

/** A tier webhook for the WABA, applied once GET /api/limits.php shows the new limit. */
async function tierBecomes (gateway: TestGateway, workspace: ConnectedWorkspace, tier: string, limit: number | null): Promise<void> {
  expect(await gateway.emulator.sendMessagingLimitUpdate({ wabaId: WABA, tier })).toBe(200)
  await waitFor(async () => (await limitsOf(gateway, workspace)).every(number => number.messaging_limit.limit === limit), { timeoutMs: 15_000, what: `limit ${String(limit)}` })
}

/** CONTRACT.md 14, the messaging limit: unique recipients of templates outside their window, rolling 24 h, per WABA. */
describe('audience: the messaging limit', () => {
  const ctx = useGateway()

  it('the tier comes from the phone-number node at connect (TIER_2K: 2,000), for every number of the WABA', async () => {
    const numbers = await limitsOf(ctx.gateway, ctx.workspace)
    expect(numbers.map(number => number.phone_number_id)).toContain(NUMBER)
    for (const number of numbers) expect(number.messaging_limit).toMatchObject({ tier: 'TIER_2K', limit: 2000, used_24h: 0, available: 2000, next_slot_at: null })
  })

  it('a phone_number_quality_update sets it (TIER_UNLIMITED: null = no limit; a number of recipients as given)', async () => {
    await tierBecomes(ctx.gateway, ctx.workspace, 'TIER_UNLIMITED', null)
    expect((await limitsOf(ctx.gateway, ctx.workspace))[0].messaging_limit.available).toBeNull()
    await tierBecomes(ctx.gateway, ctx.workspace, '2', 2)
  })

  it('past the limit a synchronous template send is 429 messaging_limit_reached with Retry-After, nothing sent; a counted recipient costs nothing; a recipient in their service window is free', async () => {
    const { gateway, workspace } = ctx
    expect((await sendTo(gateway, workspace, '15558000001', UTILITY)).statusCode).toBe(200)
    expect((await sendTo(gateway, workspace, '15558000002', UTILITY)).statusCode).toBe(200)
    const refused = await sendTo(gateway, workspace, '15558000003', UTILITY)
    expectEnvelope(refused, 429, 'messaging_limit_reached')
    const retryAfter = Number(refused.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(86_000)
    expect(retryAfter).toBeLessThanOrEqual(86_400)
    expect(sentTo(gateway, '15558000003')).toBe(0)
    // already counted: free
    expect((await sendTo(gateway, workspace, '15558000001', UTILITY)).statusCode).toBe(200)
    // wrote to us: a template in the service window is not business-initiated
    await gateway.emulator.injectInbound({ phoneNumberId: NUMBER, from: '15558000004', payload: { body: 'hi' } })
    await waitFor(async () => (await gateway.app.inbound.list(workspace.workspaceId, { limit: 100 })).some(message => message.from === '15558000004'), { what: 'inbound stored' })
    expect((await sendTo(gateway, workspace, '15558000004', UTILITY)).statusCode).toBe(200)
    // free-form messages are not counted
    expect((await sendTo(gateway, workspace, '15558000004', { body: 'a reply' })).statusCode).toBe(200)
    const [number] = await limitsOf(gateway, workspace)
    expect(number.messaging_limit).toMatchObject({ limit: 2, used_24h: 2, available: 0 })
    expect(Date.parse(number.messaging_limit.next_slot_at ?? '')).toBeGreaterThan(Date.now() + 86_000_000)
  })

  it('a queued send past the limit is held (messaging_limit), does not age meanwhile, and goes when a slot frees', async () => {
    const { gateway, workspace } = ctx
    const queued = await sendTo(gateway, workspace, '15558000005', UTILITY, { prefer: 'respond-async' })
    expect(queued.statusCode).toBe(202)
    const id = queued.json().id as string
    const held = await waitFor(async () => { const message = await messageOf(gateway, workspace, id); return message.status === 'held' ? message : undefined }, { timeoutMs: 15_000, what: 'held' })
    expect(held).toMatchObject({ status: 'held', held_reason: 'messaging_limit' })
    const listed = (await api(gateway, workspace, 'GET', '/api/messages.php?status=held')).json().messages as Array<{ id: string }>
    expect(listed.map(message => message.id)).toContain(id)
    expect(sentTo(gateway, '15558000005')).toBe(0)
    // five hours pass while it is held (more than QUEUE_MAX_AGE_MS), and the oldest slot's 24 h end
    const { db } = gateway.app.database
    await db.execute(sql`update messages set created_at = created_at - interval '5 hours', held_since = held_since - interval '5 hours' where id = ${id}`)
    await db.execute(sql`update messaging_limit_recipients set last_at = last_at - interval '24 hours' where recipient = '15558000002'`)
    await db.execute(sql`update jobs set run_at = now() where status = 'ready' and payload = convert_to(${id}, 'UTF8')`)
    const sent = await waitFor(async () => { const message = await messageOf(gateway, workspace, id); return ['sent', 'delivered', 'read'].includes(String(message.status)) ? message : undefined }, { timeoutMs: 15_000, what: 'sent' })
    expect(sent.held_reason).toBeNull()
    expect(sentTo(gateway, '15558000005')).toBe(1)
  })
})

describe('audience: the tier, the most recent information winning', () => {
  const ctx = useGateway()
  const capability = (limit: number) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: WABA, time: Math.floor(Date.now() / 1000), changes: [{ field: 'business_capability_update', value: { max_daily_conversations_per_business: limit } }] }]
  })
  const limits = async () => (await limitsOf(ctx.gateway, ctx.workspace)).map(number => number.messaging_limit.limit)

  it('a node re-read that says what it said before keeps a newer webhook tier; a node that changed since its last read wins', async () => {
    const { gateway, workspace } = ctx
    await tierBecomes(gateway, workspace, 'TIER_250', 250)
    await refreshNumbers(gateway.app.connectDeps, WABA)
    // the webhook says 10,000 while the node still says TIER_250 (it lags behind): the webhook is newer
    expect(await gateway.emulator.sendWebhook(WABA, capability(10_000))).toBe(200)
    await waitFor(async () => (await limits()).every(limit => limit === 10_000), { timeoutMs: 15_000, what: 'limit 10,000' })
    await refreshNumbers(gateway.app.connectDeps, WABA)
    expect((await limits()).every(limit => limit === 10_000)).toBe(true)
    // the node's answer differs from its last one: news, newer than the webhook
    await gateway.app.database.db.execute(sql`update phone_numbers set messaging_limit_tier_node = 'TIER_2K'`)
    await refreshNumbers(gateway.app.connectDeps, WABA)
    expect((await limits()).every(limit => limit === 250)).toBe(true)
  })
})

/** A slot taken by a send that never went out is given back (CONTRACT.md 14: it reached nobody). */
describe('audience: slots of sends that never went out', () => {
  const ctx = useGateway()
  const used = async () => (await limitsOf(ctx.gateway, ctx.workspace))[0].messaging_limit.used_24h

  it('a template the upstream refuses, or that cannot reach it, gives its slot back; one that went out keeps it', async () => {
    const { gateway, workspace } = ctx
    await tierBecomes(gateway, workspace, '1', 1)
    gateway.emulator.setFaults({ recipient: '15558200001' }, { permanent: { code: 131026, httpStatus: 400 } })
    expect((await sendTo(gateway, workspace, '15558200001', UTILITY)).statusCode).toBe(502)
    expect(await used()).toBe(0)
    gateway.emulator.setFaults({ recipient: '15558200002' }, { reset: true })
    const unreachable = await sendTo(gateway, workspace, '15558200002', UTILITY)
    expect(unreachable.statusCode).toBeGreaterThanOrEqual(500)
    // a broken connection may have sent it: the slot is kept then; otherwise it is free again
    const kept = ['outcome_unknown', 'upstream_timeout'].includes(unreachable.json().code)
    expect(await used()).toBe(kept ? 1 : 0)
    if (kept) return
    gateway.emulator.clearFaults()
    expect((await sendTo(gateway, workspace, '15558200003', UTILITY)).statusCode).toBe(200)
    expect(await used()).toBe(1)
    expectEnvelope(await sendTo(gateway, workspace, '15558200004', UTILITY), 429, 'messaging_limit_reached')
  })

  it('a send answered from its Idempotency-Key takes no slot; the first one keeps its own', async () => {
    const { gateway, workspace } = ctx
    await gateway.app.database.db.execute(sql`delete from messaging_limit_recipients`)
    await gateway.app.database.db.execute(sql`update messaging_limit_counts set used = 0`)
    await tierBecomes(gateway, workspace, '2', 2)
    const headers = { 'idempotency-key': 'slot-once' }
    expect((await sendTo(gateway, workspace, '15558300001', UTILITY, headers)).statusCode).toBe(200)
    expect((await sendTo(gateway, workspace, '15558300001', UTILITY, headers)).headers['idempotent-replayed']).toBe('true')
    expect(await used()).toBe(1)
  })
})

describe('audience: MESSAGING_LIMIT_CHECK=off', () => {
  const ctx = useGateway({ env: { MESSAGING_LIMIT_CHECK: 'off' } })

  it('sends past the tier', async () => {
    await tierBecomes(ctx.gateway, ctx.workspace, '1', 1)
    for (const to of ['15558100001', '15558100002', '15558100003']) expect((await sendTo(ctx.gateway, ctx.workspace, to, UTILITY)).statusCode).toBe(200)
  })
})
