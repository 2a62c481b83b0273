import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { createCampaign, recipients, sendsPerRecipient, sumOf, untilStatus, type C } from './helpers.js'

/**
 * A campaign message the upstream refuses with 130429 (the number's throughput reached) was not
 * sent: it waits for the number's next slot and goes again, without spending its attempts
 * (upstream-facts.md 2.3, 3.1; CONTRACT.md 15). The gateway paces this number at 50/s; the
 * emulator enforces 10/s, so most first tries are refused.
 */
describe('campaigns: refused for throughput (130429)', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '50', PAIR_RATE_BURST: '1000', MAX_ATTEMPTS: '2' }, emulator: { throughputMps: 10 } })

  it('every message goes once the number has room again: none failed, each recipient once', async () => {
    const created = (await createCampaign(ctx.gateway, ctx.workspace, { template: 'hello_world', recipients: recipients(40, 7000) })).json() as { campaign: C }
    const done = await untilStatus(ctx.gateway, ctx.workspace, created.campaign.id, 'completed', 60_000)
    // the upstream did refuse some: two refusals of one message would have failed it (MAX_ATTEMPTS=2)
    expect(ctx.gateway.emulator.stats.errors[130429] ?? 0).toBeGreaterThan(20)
    expect(sumOf(done.counts)).toBe(40)
    expect(done.counts.failed).toBe(0)
    expect(done.counts.sent + done.counts.delivered + done.counts.read).toBe(40)
    const sends = sendsPerRecipient(ctx.gateway, 'hello_world')
    for (const recipient of recipients(40, 7000)) expect(sends.get(String(recipient.to).slice(1))).toBe(1)
  }, 90_000)
})
