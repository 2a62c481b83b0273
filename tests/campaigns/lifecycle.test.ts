import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { handOver } from '../queue/helpers.js'
import { act, createCampaign, readCampaign, recipients, sendsPerRecipient, sumOf, untilStatus, type C } from './helpers.js'

const sentTo = (gateway: { emulator: { sentMessages: Array<{ to: string }> } }, prefix: string) => gateway.emulator.sentMessages.filter(message => message.to.startsWith(prefix)).length

/** Pause, resume, cancel, the lane behind queued sends, campaign.completed and the audit log (CONTRACT.md 15, 10, 16). */
describe('campaigns: lifecycle', () => {
  // slow enough to act on a campaign mid-drain
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '10', PAIR_RATE_BURST: '1000' } })

  it('pause stops new dispatch within 1 s; resume goes on; each recipient once; counts add up throughout', async () => {
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: recipients(40, 1000) })).json() as { campaign: C }
    const id = created.campaign.id
    await waitFor(async () => sentTo(ctx.gateway, '1777000100') >= 5, { timeoutMs: 20_000, what: 'the first sends' })
    const paused = await act(ctx.gateway, ctx.workspace, id, 'pause')
    expect(paused.statusCode).toBe(200)
    expect((paused.json() as { campaign: C }).campaign.status).toBe('paused')
    await new Promise(resolve => setTimeout(resolve, 1000))
    const atOneSecond = sentTo(ctx.gateway, '1777000')
    await new Promise(resolve => setTimeout(resolve, 2000))
    expect(sentTo(ctx.gateway, '1777000')).toBe(atOneSecond)
    const whilePaused = await readCampaign(ctx.gateway, ctx.workspace, id)
    expect(whilePaused.status).toBe('paused')
    expect(sumOf(whilePaused.counts)).toBe(40)
    expect(whilePaused.counts.waiting).toBeGreaterThan(0)
    // asking again is answered with the state it is in
    expect((await act(ctx.gateway, ctx.workspace, id, 'pause')).statusCode).toBe(200)

    expect((await act(ctx.gateway, ctx.workspace, id, 'resume')).statusCode).toBe(200)
    const done = await untilStatus(ctx.gateway, ctx.workspace, id, 'completed', 60_000)
    expect(sumOf(done.counts)).toBe(40)
    expect(done.counts.sent + done.counts.delivered + done.counts.read).toBe(40)
    const sends = sendsPerRecipient(ctx.gateway, 'hello_world')
    for (const recipient of recipients(40, 1000)) expect(sends.get(String(recipient.to).slice(1))).toBe(1)
    // ended: no more changes
    expectEnvelope(await act(ctx.gateway, ctx.workspace, id, 'pause'), 409, 'campaign_ended')
  }, 120_000)

  it('cancel ends every unsent message cancelled; counts add up; nothing more goes', async () => {
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: recipients(60, 2000) })).json() as { campaign: C }
    const id = created.campaign.id
    await waitFor(async () => sentTo(ctx.gateway, '1777000200') >= 3, { timeoutMs: 20_000, what: 'the first sends' })
    const cancelled = (await act(ctx.gateway, ctx.workspace, id, 'cancel')).json() as { campaign: C }
    expect(cancelled.campaign.status).toBe('cancelled')
    await new Promise(resolve => setTimeout(resolve, 1500))
    const after = sentTo(ctx.gateway, '177700020')
    await new Promise(resolve => setTimeout(resolve, 1500))
    expect(sentTo(ctx.gateway, '177700020')).toBe(after)
    const campaign = await readCampaign(ctx.gateway, ctx.workspace, id)
    expect(campaign.status).toBe('cancelled')
    expect(sumOf(campaign.counts)).toBe(60)
    expect(campaign.counts.waiting + campaign.counts.queued).toBe(0)
    expect(campaign.counts.cancelled).toBeGreaterThan(0)
    expect(campaign.counts.cancelled + campaign.counts.sent + campaign.counts.delivered + campaign.counts.read).toBe(60)
  }, 60_000)

  it('an ordinary queued send handed over during the drain goes ahead of the campaign messages not yet dispatched', async () => {
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: recipients(60, 3000) })).json() as { campaign: C }
    await waitFor(async () => sentTo(ctx.gateway, '177700030') >= 10, { timeoutMs: 20_000, what: 'the campaign under way' })
    const handedAt = Date.now()
    const queued = await handOver(ctx.gateway, ctx.workspace, { to: '+17779990001' })
    expect(queued.statusCode).toBe(202)
    const ordinary = await waitFor(async () => ctx.gateway.emulator.sentMessages.find(message => message.to === '17779990001'), { timeoutMs: 10_000, what: 'the ordinary queued send' })
    // every campaign message sent more than 1 s after the hand-over came after it
    const lateCampaignBefore = ctx.gateway.emulator.sentMessages.filter(message => message.to.startsWith('177700030') && message.at > handedAt + 1000 && message.at < ordinary.at)
    expect(lateCampaignBefore.map(message => message.at - handedAt), `sent after ${ordinary.at - handedAt} ms`).toEqual([])
    expect(ordinary.at - handedAt).toBeLessThan(1500)
    const campaign = await readCampaign(ctx.gateway, ctx.workspace, created.campaign.id)
    expect(campaign.counts.waiting + campaign.counts.queued).toBeGreaterThan(0)
    await act(ctx.gateway, ctx.workspace, created.campaign.id, 'cancel')
  }, 60_000)

  it('campaign.completed goes through the outbox with C; audit entries campaign.created/paused/resumed/cancelled', async () => {
    await ctx.gateway.app.webhooks.addEndpoint({ workspaceId: ctx.workspace.workspaceId, url: 'https://127.0.0.1:9/hook', events: ['campaign.completed'], secret: 'whsec_dGVzdHRlc3R0ZXN0dGVzdA==' })
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: recipients(2, 4000) })).json() as { campaign: C }
    const done = await untilStatus(ctx.gateway, ctx.workspace, created.campaign.id, 'completed')
    const result = await ctx.gateway.app.database.db.execute(sql`select body from webhook_deliveries where type = 'campaign.completed' and workspace_id = ${ctx.workspace.workspaceId}`)
    const bodies = rowsOf<{ body: string }>(result).map(row => JSON.parse(row.body) as { type: string, data: C })
    const event = bodies.find(body => body.data.id === created.campaign.id)
    expect(event?.type).toBe('campaign.completed')
    // a snapshot taken at completion: statuses may have moved on since (sent → read)
    expect({ ...event?.data, counts: undefined }).toEqual({ ...done, counts: undefined })
    expect(event?.data.counts).toMatchObject({ total: 2, waiting: 0, queued: 0 })
    expect(event!.data.counts.sent + event!.data.counts.delivered + event!.data.counts.read).toBe(2)

    const entries = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 100 })
    const actions = new Set(entries.filter(entry => entry.targetKind === 'campaign').map(entry => entry.action))
    for (const action of ['campaign.created', 'campaign.paused', 'campaign.resumed', 'campaign.cancelled']) expect(actions).toContain(action)
    expect(entries.find(entry => entry.action === 'campaign.created')?.actorId).toBe(ctx.workspace.apiKeyId)
  })
})

describe('campaigns: the checks of sending (401 → 429 → 403 → 409) and scopes', () => {
  const ctx = useGateway({ env: { RATE_LIMIT_MAX: '1000' } })
  const body = { template: 'hello_world', recipients: recipients(1, 5000) }

  it('401 without a key; 403 on the free plan; 403 insufficient_scope without campaigns:write / campaigns:read; 409 without a connection', async () => {
    expectEnvelope(await createCampaign(ctx.gateway, { authorization: 'Bearer nope' }, body), 401, 'unauthorized')
    const free = await ctx.gateway.app.workspaces.create('free', 'free')
    const freeKey = await ctx.gateway.app.keys.create(free.id, 'k')
    expectEnvelope(await createCampaign(ctx.gateway, { authorization: `Bearer ${freeKey.secret}` }, body), 403, 'plan_upgrade_required')
    const readOnly = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'read', { scopes: ['campaigns:read'] })
    expectEnvelope(await createCampaign(ctx.gateway, { authorization: `Bearer ${readOnly.secret}` }, body), 403, 'insufficient_scope')
    const writeOnly = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'write', { scopes: ['campaigns:write'] })
    expect((await createCampaign(ctx.gateway, { authorization: `Bearer ${writeOnly.secret}` }, body)).statusCode).toBe(201)
    expectEnvelope(await ctx.gateway.app.inject({ method: 'GET', url: '/api/campaigns.php', headers: { authorization: `Bearer ${writeOnly.secret}` } }), 403, 'insufficient_scope')
    expect((await ctx.gateway.app.inject({ method: 'GET', url: '/api/campaigns.php', headers: { authorization: `Bearer ${readOnly.secret}` } })).statusCode).toBe(200)
    const unconnected = await ctx.gateway.app.workspaces.create('unconnected', 'growth')
    const unconnectedKey = await ctx.gateway.app.keys.create(unconnected.id, 'k')
    expectEnvelope(await createCampaign(ctx.gateway, { authorization: `Bearer ${unconnectedKey.secret}` }, body), 409, 'no_active_connection')
    // reads need no connection
    expect((await ctx.gateway.app.inject({ method: 'GET', url: '/api/campaigns.php', headers: { authorization: `Bearer ${unconnectedKey.secret}` } })).statusCode).toBe(200)
  })
})
