import { describe, expect, it } from 'vitest'
import { disconnectWorkspace } from '../../src/connections/connect.js'
import { useGateway } from '../helpers/use-gateway.js'
import { expectEnvelope } from '../messages/helpers.js'
import { act, createCampaign, readCampaign, recipients, URL, type C } from '../campaigns/helpers.js'

/** CONTRACT.md 16: a campaign's actions act from its number and need it among the key's numbers. */
describe('scoped keys: a campaign\'s actions need its number', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '5', PAIR_RATE_BURST: '1000' } })
  const numbers = () => ctx.workspace.connection.phone_numbers.map(number => number.phone_number_id)

  async function keyFor (phoneNumberIds: string[], scopes: Array<'campaigns:write' | 'campaigns:read'> = ['campaigns:write', 'campaigns:read']) {
    const { secret } = await ctx.gateway.app.keys.create(ctx.workspace.workspaceId, 'numbers', { scopes, phoneNumberIds })
    return { authorization: `Bearer ${secret}` }
  }

  it('a key limited to number B may not pause, resume or cancel a campaign on number A: 403 naming A, nothing changed', async () => {
    const [first, second] = numbers()
    const onFirst = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', phone_number_id: first, recipients: recipients(40, 8000) })).json() as { campaign: C }
    const id = onFirst.campaign.id
    const secondOnly = await keyFor([second])

    for (const action of ['pause', 'cancel', 'resume']) {
      const refused = expectEnvelope(await act(ctx.gateway, secondOnly, id, action), 403, 'insufficient_scope')
      expect(refused.error).toContain(first)
      expect((await readCampaign(ctx.gateway, ctx.workspace, id)).status).toBe('running')
    }
    // paused by a key that may, a resume by one that may not leaves it paused
    expect((await act(ctx.gateway, ctx.workspace, id, 'pause')).statusCode).toBe(200)
    expectEnvelope(await act(ctx.gateway, secondOnly, id, 'resume'), 403, 'insufficient_scope')
    expect((await readCampaign(ctx.gateway, ctx.workspace, id)).status).toBe('paused')

    const audited = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 100 })
    expect(audited.filter(entry => entry.targetId === id && entry.actorId !== ctx.workspace.apiKeyId)).toEqual([])

    // a key limited to A acts on it
    const firstOnly = await keyFor([first])
    expect((await act(ctx.gateway, firstOnly, id, 'resume')).statusCode).toBe(200)
    expect((await act(ctx.gateway, firstOnly, id, 'cancel')).statusCode).toBe(200)
  }, 30_000)

  it('an unknown campaign is still a 404 for a limited key; reads are not limited by number (section 16: the numbers a key may send from)', async () => {
    const [first, second] = numbers()
    const secondOnly = await keyFor([second])
    expectEnvelope(await act(ctx.gateway, secondOnly, 'cmp_nosuchcampaign', 'pause'), 404, 'not_found')
    const onFirst = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', phone_number_id: first, send_at: new Date(Date.now() + 3_600_000).toISOString(), recipients: recipients(2, 8100) })).json() as { campaign: C }
    expect((await readCampaign(ctx.gateway, secondOnly, onFirst.campaign.id)).id).toBe(onFirst.campaign.id)
    const list = await ctx.gateway.app.inject({ method: 'GET', url: URL, headers: secondOnly })
    expect((list.json() as { campaigns: C[] }).campaigns.map(campaign => campaign.id)).toContain(onFirst.campaign.id)
    await act(ctx.gateway, ctx.workspace, onFirst.campaign.id, 'cancel')
  })

  // runs last: it disconnects the workspace
  it('the number is checked before the connection: a disconnected workspace answers a limited key 403, not 409', async () => {
    const [first, second] = numbers()
    const onFirst = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', phone_number_id: first, send_at: new Date(Date.now() + 3_600_000).toISOString(), recipients: recipients(2, 8200) })).json() as { campaign: C }
    await disconnectWorkspace(ctx.gateway.app.connectDeps, ctx.workspace.workspaceId)
    const refused = expectEnvelope(await act(ctx.gateway, await keyFor([second]), onFirst.campaign.id, 'pause'), 403, 'insufficient_scope')
    expect(refused.error).toContain(first)
    expectEnvelope(await act(ctx.gateway, await keyFor([first]), onFirst.campaign.id, 'pause'), 409, 'no_active_connection')
  })
})
