import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { createCampaign, readCampaign, recipients, sumOf, untilStatus, URL, type C } from './helpers.js'

/** POST /api/campaigns.php with JSON, GET one and the list (CONTRACT.md 15). */
describe('campaigns: creation (JSON) and reads', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '200' } })

  it('201 {ok, campaign: C}: every field of C, counts that add up to total, each recipient sent once with its variables', async () => {
    const rows = [
      ...recipients(3, 0, index => [`A${index}`]),
      { to: '+17770000001', variables: ['again'] }, // repeated: sent once (its first row)
      { to: 'not-a-number', variables: ['x'] },
      { to: '+17770000009', variables: ['a', 'b'] }, // the template has one placeholder
      { to: '+17770000010', variables: { 1: 'keyed' }, client_reference: 'ref-10' }
    ]
    const response = await createCampaign(ctx.gateway, ctx.workspace, { template: 'order_confirmation', language: 'en_US', recipients: rows })
    expect(response.statusCode).toBe(201)
    const body = response.json() as { ok: true, campaign: C, rejected: unknown[] }
    expect(body.ok).toBe(true)
    const campaign = body.campaign
    expect(Object.keys(campaign).sort()).toEqual(['completed_at', 'counts', 'created_at', 'id', 'language', 'name', 'paused_reason', 'phone_number_id', 'send_at', 'status', 'template'])
    expect(campaign).toMatchObject({ name: 'Spring sale', template: 'order_confirmation', language: 'en_US', phone_number_id: ctx.workspace.connection.phone_numbers[0].phone_number_id, completed_at: null, paused_reason: null })
    expect(campaign.id).toMatch(/^cmp_/)
    expect(['running', 'completed']).toContain(campaign.status)
    expect(campaign.counts.total).toBe(6)
    expect(campaign.counts.rejected).toBe(2)
    expect(sumOf(campaign.counts)).toBe(campaign.counts.total)
    expect(body.rejected).toEqual([
      { row: 5, field: 'to', error: expect.any(String) },
      { row: 6, field: 'variables', error: expect.stringMatching(/1 parameter/) }
    ])
    const done = await untilStatus(ctx.gateway, ctx.workspace, campaign.id, 'completed')
    expect(done.completed_at).not.toBeNull()
    expect(sumOf(done.counts)).toBe(6)
    expect(done.counts, JSON.stringify(await ctx.gateway.app.campaigns.failureReasons(campaign.id))).toMatchObject({ failed: 0, cancelled: 0, waiting: 0, queued: 0 })
    expect(done.counts.sent + done.counts.delivered + done.counts.read).toBe(4)
    const sent = ctx.gateway.emulator.sentMessages.filter(message => (message.payload.template as { name?: string })?.name === 'order_confirmation')
    const byRecipient = new Map(sent.map(message => [message.payload.to, message.payload.template]))
    expect(sent.filter(message => message.payload.to === '17770000001')).toHaveLength(1)
    expect(byRecipient.get('17770000001')).toEqual({ name: 'order_confirmation', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'A1' }] }] })
    expect(byRecipient.get('17770000010')).toMatchObject({ components: [{ type: 'body', parameters: [{ type: 'text', text: 'keyed' }] }] })

    const messages = await ctx.gateway.app.inject({ method: 'GET', url: `/api/messages.php?campaign_id=${campaign.id}`, headers: { authorization: ctx.workspace.authorization } })
    expect(messages.statusCode).toBe(200)
    const listed = (messages.json() as { messages: Array<{ to: string, client_reference: string | null }> }).messages
    expect(listed.map(message => message.to).sort()).toEqual(['17770000000', '17770000001', '17770000002', '17770000010'])
    expect(listed.find(message => message.to === '17770000010')?.client_reference).toBe('ref-10')
  })

  it('send_at in the future: scheduled, nothing sent until it comes, all waiting', async () => {
    const sendAt = new Date(Date.now() + 60 * 60_000).toISOString()
    const response = await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: sendAt, recipients: recipients(3, 100) })
    expect(response.statusCode).toBe(201)
    const campaign = (response.json() as { campaign: C }).campaign
    expect(campaign.status).toBe('scheduled')
    expect(campaign.send_at).toBe(sendAt)
    expect(campaign.counts).toMatchObject({ total: 3, waiting: 3 })
    await new Promise(resolve => setTimeout(resolve, 1500))
    expect((await readCampaign(ctx.gateway, ctx.workspace, campaign.id)).counts.waiting).toBe(3)
    expect(ctx.gateway.emulator.sentMessages.filter(message => message.payload.to === '17770000100')).toHaveLength(0)
  })

  it('a due send_at: the scheduled campaign starts by itself', async () => {
    const response = await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: new Date(Date.now() + 1500).toISOString(), recipients: recipients(2, 200) })
    const campaign = (response.json() as { campaign: C }).campaign
    expect(campaign.status).toBe('scheduled')
    const done = await untilStatus(ctx.gateway, ctx.workspace, campaign.id, 'completed')
    expect(done.counts.total - done.counts.waiting - done.counts.queued).toBe(2)
  })

  it('422s naming the field: recipients over 100,000 (nothing created), empty, send_at, name', async () => {
    const before = await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 100 })
    const tooMany = Array.from({ length: 100_001 }, () => ({ to: '+17770000000' }))
    expect(expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: tooMany }), 422, 'invalid_request').field).toBe('recipients')
    expect((await ctx.gateway.app.campaigns.page(ctx.workspace.workspaceId, { limit: 100 }))?.rows).toHaveLength(before!.rows.length)
    expect(expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: [] }), 422, 'invalid_request').field).toBe('recipients')
    expect(expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: 'tomorrow', recipients: recipients(1) }), 422, 'invalid_request').field).toBe('send_at')
    expect(expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { name: '', template: 'hello_world', recipients: recipients(1) }), 422, 'invalid_request').field).toBe('name')
  })

  it('the template is checked once: unknown → template_not_found, not approved → template_not_approved naming the status', async () => {
    expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { template: 'never_synced', language: 'en_US', recipients: recipients(1) }), 422, 'template_not_found')
    const body = expectEnvelope(await createCampaign(ctx.gateway, ctx.workspace, { template: 'promo_rejected', recipients: recipients(1) }), 422, 'template_not_approved')
    expect(body.error).toMatch(/REJECTED/)
  })

  it('GET: one (404 for an unknown id) and the list, newest first, paged with limit and cursor', async () => {
    const a = (await createCampaign(ctx.gateway, ctx.workspace, { name: 'A', template: 'hello_world', send_at: new Date(Date.now() + 3600_000).toISOString(), recipients: recipients(1, 300) })).json() as { campaign: C }
    const b = (await createCampaign(ctx.gateway, ctx.workspace, { name: 'B', template: 'hello_world', send_at: new Date(Date.now() + 3600_000).toISOString(), recipients: recipients(1, 301) })).json() as { campaign: C }
    const get = (url: string) => ctx.gateway.app.inject({ method: 'GET', url, headers: { authorization: ctx.workspace.authorization } })
    expect((await readCampaign(ctx.gateway, ctx.workspace, a.campaign.id)).name).toBe('A')
    expectEnvelope(await get(`${URL}?id=cmp_unknown1`), 404, 'not_found')
    const first = (await get(`${URL}?limit=1`)).json() as { campaigns: C[], next_cursor: string | null }
    expect(first.campaigns.map(campaign => campaign.id)).toEqual([b.campaign.id])
    expect(first.next_cursor).toEqual(expect.any(String))
    const second = (await get(`${URL}?limit=1&cursor=${first.next_cursor}`)).json() as { campaigns: C[] }
    expect(second.campaigns.map(campaign => campaign.id)).toEqual([a.campaign.id])
    expect(expectEnvelope(await get(`${URL}?cursor=nonsense`), 422, 'invalid_request').field).toBe('cursor')
    expect(expectEnvelope(await get(`${URL}?limit=0`), 422, 'invalid_request').field).toBe('limit')
  })
})
