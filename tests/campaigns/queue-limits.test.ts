import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { campaignMessage } from '../../src/campaigns/payload.js'
import { send } from '../helpers/send.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { handOver } from '../queue/helpers.js'
import { act, createCampaign, readCampaign, recipients, type C } from './helpers.js'

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/**
 * Campaign messages count against neither QUEUE_LIMIT nor ASYNC_QUEUE_LIMIT (CONTRACT.md 15), with
 * the shared (Redis) pacer: a campaign on a number leaves live sends and queued hand-overs their
 * usual answers.
 */
describe('campaigns: outside QUEUE_LIMIT and ASYNC_QUEUE_LIMIT (Redis pacer)', () => {
  const ctx = useGateway({ env: { REDIS_URL, THROUGHPUT_MPS: '2', QUEUE_LIMIT: '1', ASYNC_QUEUE_LIMIT: '3' } })

  it('queued campaign messages beyond ASYNC_QUEUE_LIMIT: countQueued leaves them out, hand-overs get 202', async () => {
    const { gateway, workspace } = ctx
    // another process holds the second number's drain: the campaign's messages, made here, wait queued
    const second = workspace.connection.phone_numbers[1].phone_number_id
    const { db } = gateway.app.database
    await db.execute(sql`insert into job_groups (name, group_key, holder, lease_expires_at) values ('number-drains', ${second}, 'dsp_elsewhere', now() + interval '1 hour')`)
    const created = await createCampaign(gateway, workspace, { template: 'hello_world', phone_number_id: second, recipients: recipients(10, 7000) })
    const { id } = (created.json() as { campaign: C }).campaign
    expect(await gateway.app.campaigns.materialise(id, 10, campaignMessage)).toBe(10)
    expect(await gateway.app.queuedSends.countQueued(workspace.workspaceId)).toBe(0)
    const handedOver = []
    for (let index = 0; index < 3; index++) handedOver.push(await handOver(gateway, workspace, { to: `1555400${String(index).padStart(4, '0')}` }))
    expect(handedOver.map(response => response.statusCode)).toEqual([202, 202, 202])
    expect((await act(gateway, workspace, id, 'cancel')).statusCode).toBe(200)
    await db.execute(sql`delete from job_groups where group_key = ${second}`)
  })

  it('a campaign draining with QUEUE_LIMIT=1: a live send on the same number waits its turn (200), never 503 queue_full', async () => {
    const { gateway, workspace } = ctx
    const created = await createCampaign(gateway, workspace, { template: 'hello_world', recipients: recipients(30, 7100) })
    const { id } = (created.json() as { campaign: C }).campaign
    await waitFor(async () => { const read = await readCampaign(gateway, workspace, id); return read.counts.sent + read.counts.delivered + read.counts.read >= 2 }, { timeoutMs: 15_000, what: 'the campaign under way' })
    const answers = []
    for (let index = 0; index < 3; index++) answers.push(await send(gateway, { to: `1555410${String(index).padStart(4, '0')}`, body: 'Live, behind the campaign' }, { authorization: workspace.authorization }))
    expect(answers.map(answer => answer.statusCode), answers.map(answer => answer.body).join('\n')).toEqual([200, 200, 200])
    expect((await readCampaign(gateway, workspace, id)).status).toBe('running')
    expect((await act(gateway, workspace, id, 'cancel')).statusCode).toBe(200)
  })
})
