import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { act, createCampaign, readCampaign, recipients, sumOf, type C } from './helpers.js'

interface Listed { id: string, to: string, status: string, error: { code: string } | null }

/** CONTRACT.md 15: cancel ends every unsent message `cancelled`, and ?campaign_id= lists them all. */
describe('campaigns: a cancelled campaign lists every message', () => {
  // slow: most of the campaign is not yet dispatched (nor made into messages) when it is cancelled
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '5', PAIR_RATE_BURST: '1000' } })

  async function listed (campaignId: string): Promise<Listed[]> {
    const all: Listed[] = []
    let cursor: string | null = null
    do {
      const response = await ctx.gateway.app.inject({ method: 'GET', url: `/api/messages.php?campaign_id=${campaignId}&limit=100${cursor === null ? '' : `&cursor=${cursor}`}`, headers: { authorization: ctx.workspace.authorization } })
      expect(response.statusCode, response.body).toBe(200)
      const page = response.json() as { messages: Listed[], next_cursor: string | null }
      all.push(...page.messages)
      cursor = page.next_cursor
    } while (cursor !== null)
    return all
  }

  it('30 at 5/s cancelled after a few sends: 30 messages listed, each sent or cancelled, counts adding up', async () => {
    const list = recipients(30, 7000)
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: list })).json() as { campaign: C }
    const id = created.campaign.id
    await waitFor(async () => ctx.gateway.emulator.sentMessages.filter(message => message.to.startsWith('177700070')).length >= 3, { timeoutMs: 20_000, what: 'the first sends' })
    expect((await act(ctx.gateway, ctx.workspace, id, 'cancel')).statusCode).toBe(200)
    // a send under way at the cancel finishes; then nothing moves
    await waitFor(async () => (await listed(id)).every(message => message.status !== 'queued' && message.status !== 'sending' && message.status !== 'pending') || undefined, { timeoutMs: 10_000, what: 'nothing under way' })

    const messages = await listed(id)
    expect(messages.map(message => message.to).sort()).toEqual(list.map(recipient => String(recipient.to).slice(1)).sort())
    expect(new Set(messages.map(message => message.id)).size).toBe(30)
    const cancelled = messages.filter(message => message.status === 'failed' && message.error?.code === 'cancelled')
    const sent = messages.filter(message => ['sent', 'delivered', 'read'].includes(message.status))
    expect(cancelled.length + sent.length, JSON.stringify(messages.map(message => message.status))).toBe(30)
    expect(cancelled.length).toBeGreaterThan(10)

    const campaign = await readCampaign(ctx.gateway, ctx.workspace, id)
    expect(sumOf(campaign.counts)).toBe(30)
    expect(campaign.counts.cancelled).toBe(cancelled.length)
    expect(campaign.counts.waiting + campaign.counts.queued).toBe(0)
    // the cancelled messages are no work: nothing more goes
    const sentNow = ctx.gateway.emulator.sentMessages.length
    await new Promise(resolve => setTimeout(resolve, 1500))
    expect(ctx.gateway.emulator.sentMessages.length).toBe(sentNow)
  }, 60_000)

  it('a scheduled campaign cancelled before it starts: every recipient listed cancelled', async () => {
    const sendAt = new Date(Date.now() + 60 * 60_000).toISOString()
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: sendAt, recipients: recipients(12, 7100) })).json() as { campaign: C }
    expect((await act(ctx.gateway, ctx.workspace, created.campaign.id, 'cancel')).statusCode).toBe(200)
    const messages = await listed(created.campaign.id)
    expect(messages).toHaveLength(12)
    expect(messages.every(message => message.status === 'failed' && message.error?.code === 'cancelled')).toBe(true)
    const campaign = await readCampaign(ctx.gateway, ctx.workspace, created.campaign.id)
    expect(campaign.counts).toMatchObject({ total: 12, cancelled: 12 })
  })

  it('a cancel cut short before every recipient had its message (the process died) is finished by a cancel asked again', async () => {
    const sendAt = new Date(Date.now() + 60 * 60_000).toISOString()
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: sendAt, recipients: recipients(7, 7200) })).json() as { campaign: C }
    // the cancel's first transaction committed, none of its chunks did
    await ctx.gateway.app.database.db.execute(sql`update campaigns set status = 'cancelled' where id = ${created.campaign.id}`)
    expect(await listed(created.campaign.id)).toHaveLength(0)
    expect((await readCampaign(ctx.gateway, ctx.workspace, created.campaign.id)).counts).toMatchObject({ total: 7, cancelled: 7 })
    const again = await act(ctx.gateway, ctx.workspace, created.campaign.id, 'cancel')
    expect(again.statusCode, again.body).toBe(200)
    expect(await listed(created.campaign.id)).toHaveLength(7)
    expect((await readCampaign(ctx.gateway, ctx.workspace, created.campaign.id)).counts).toMatchObject({ total: 7, cancelled: 7 })
  })
})
