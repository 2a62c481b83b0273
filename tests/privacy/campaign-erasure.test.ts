import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { actors } from '../../src/access/audit.js'
import { createCampaign, readCampaign, recipients, sumOf, untilStatus, type C } from '../campaigns/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'

/** CONTRACT.md 17: a person erased while a campaign still holds their row is never sent to; the campaign's counts add up. */
describe('privacy: a campaign recipient erased before their message is made', () => {
  const ctx = useGateway()

  it('is not sent to: their row becomes a failed, erased record, the others are sent, and no conversation names nobody', async () => {
    const list = recipients(4, 7300)
    const erased = String(list[1].to).replace(/^\+/, '')
    const sendAt = new Date(Date.now() + 2500).toISOString()
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: sendAt, recipients: list })).json() as { campaign: C }
    const asked = await ctx.gateway.app.privacy.requestErasure({ workspaceId: ctx.workspace.workspaceId, recipient: erased, who: actors.cli() })
    await waitFor(async () => (await ctx.gateway.app.erasures.get(asked.id))?.status === 'completed', { what: 'the erasure completed' })

    const campaign = await untilStatus(ctx.gateway, ctx.workspace, created.campaign.id, 'completed')
    expect(sumOf(campaign.counts)).toBe(4)
    const sentTo = ctx.gateway.emulator.sentMessages.map(message => String(message.to))
    expect(sentTo.filter(to => to === erased || to === '')).toEqual([])
    expect(sentTo.filter(to => list.some(recipient => String(recipient.to).endsWith(to)))).toHaveLength(3)
    const { db } = ctx.gateway.app.database
    const records = rowsOf<{ recipient: string, status: string, error_code: string | null, erased: boolean }>(await db.execute(sql`
      select recipient, status, error_code, erased from messages where campaign_id = ${created.campaign.id} order by recipient`))
    expect(records).toHaveLength(4)
    expect(records.filter(record => record.erased)).toEqual([{ recipient: '', status: 'failed', error_code: 'recipient_erased', erased: true }])
    expect(rowsOf(await db.execute(sql`select 1 from conversations where person = ''`))).toEqual([])
    expect((await readCampaign(ctx.gateway, ctx.workspace, created.campaign.id)).counts.failed).toBe(1)
  }, 60_000)
})
