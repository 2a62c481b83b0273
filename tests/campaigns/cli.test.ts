import { describe, expect, it } from 'vitest'
import { parseInvocation } from '../../src/cli/invocation.js'
import type { Runtime } from '../../src/runtime.js'
import { useGateway } from '../helpers/use-gateway.js'
import { createCampaign, recipients, type C } from './helpers.js'

/** `outbound campaigns list|show|pause|resume|cancel` (CONTRACT.md 15), run on the gateway's own stores. */
describe('outbound campaigns', () => {
  const ctx = useGateway()

  async function cli (...argv: string[]): Promise<any> {
    const invocation = await parseInvocation(argv)
    if (invocation.kind !== 'run') throw new Error(`not a command: ${argv.join(' ')}`)
    const runtime = { stores: ctx.gateway.app } as unknown as Runtime
    return await invocation.command.run(invocation.args, runtime, ctx.gateway.app.config)
  }

  it('list, show, pause, resume, cancel; each change audited as the operator', async () => {
    const sendAt = new Date(Date.now() + 3600_000).toISOString()
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', send_at: sendAt, recipients: recipients(3, 7000) })).json() as { campaign: C }
    const id = created.campaign.id
    expect((await cli('campaigns', 'list', '--workspace', ctx.workspace.workspaceId)).campaigns.map((campaign: C) => campaign.id)).toEqual([id])
    const shown = await cli('campaigns', 'show', '--id', id)
    expect(shown.campaign).toMatchObject({ id, status: 'scheduled', counts: { total: 3, waiting: 3 } })
    expect(shown.failure_reasons).toEqual([])
    expect((await cli('campaigns', 'pause', '--id', id)).campaign.status).toBe('paused')
    expect((await cli('campaigns', 'resume', '--id', id)).campaign.status).toBe('scheduled')
    const cancelled = await cli('campaigns', 'cancel', '--id', id)
    expect(cancelled.campaign).toMatchObject({ status: 'cancelled', counts: { total: 3, cancelled: 3 } })
    await expect(cli('campaigns', 'pause', '--id', id)).rejects.toThrow(/cancelled/)
    await expect(cli('campaigns', 'show', '--id', 'cmp_nothing')).rejects.toThrow(/not found/)
    const entries = await ctx.gateway.app.auditLog.page(ctx.workspace.workspaceId, { limit: 20 })
    expect(entries.filter(entry => entry.targetId === id && entry.actorKind === 'cli').map(entry => entry.action)).toEqual(['campaign.cancelled', 'campaign.resumed', 'campaign.paused'])
  })
})
