import { afterEach, describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { act } from './helpers.js'
import { auditOf, cancelAll, guarded, limitsOf, NUMBER, OTHER_NUMBER, runningCampaign, sleep, campaignBecomes, WABA } from './helpers-guard.js'

const ENV = { THROUGHPUT_MPS: '5', PAIR_RATE_BURST: '1000', QUALITY_GUARD_RECOVERY_MS: '1000', QUALITY_GUARD_WINDOW: '10' }

/** The quality guard's signals and recoveries (CONTRACT.md 21), each scenario on its own campaigns; they share the default WABA. */
describe('quality guard: signals from webhooks', () => {
  const ctx = useGateway({ env: ENV })
  // a test that fails leaves no campaign sending beside the next test's
  afterEach(async () => { await cancelAll(ctx.gateway, ctx.workspace) })

  it('FLAGGED pauses the number\'s campaigns (number_flagged, event, audit by the system), not another number\'s; UNFLAGGED resumes them after the recovery time; a manual pause stays manual', async () => {
    const { gateway, workspace } = ctx
    const flagged = await runningCampaign(gateway, workspace, 100, 10_000)
    const other = await runningCampaign(gateway, workspace, 100, 10_200, { phone_number_id: OTHER_NUMBER })
    const manual = await runningCampaign(gateway, workspace, 100, 10_400)
    expect((await act(gateway, workspace, manual, 'pause')).statusCode).toBe(200)
    expect((await guarded(gateway, workspace, manual)).paused_reason).toBe('manual')

    expect(await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'FLAGGED' })).toBe(200)
    await campaignBecomes(gateway, workspace, flagged, 'paused', 'number_flagged')
    expect((await guarded(gateway, workspace, other)).status).toBe('running')
    expect((await guarded(gateway, workspace, manual)).paused_reason).toBe('manual')
    const [entry] = await auditOf(gateway, workspace, flagged, 'campaign.paused')
    expect(entry).toMatchObject({ actorKind: 'system', actorId: null, ip: null, targetKind: 'campaign' })
    expect(await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'UNFLAGGED' })).toBe(200)
    await campaignBecomes(gateway, workspace, flagged, 'running', null)
    expect(await auditOf(gateway, workspace, flagged, 'campaign.resumed')).toHaveLength(1)
    expect((await guarded(gateway, workspace, manual)).paused_reason).toBe('manual')
    await sleep(1500)
    expect((await guarded(gateway, workspace, manual)).status).toBe('paused')

    const limits = { phone_numbers: await limitsOf(gateway, workspace) }
    const history = limits.phone_numbers.find(number => number.phone_number_id === NUMBER)!.quality_history
    const events = history.map(signal => signal.event).filter(Boolean)
    expect(events).toEqual(['FLAGGED', 'UNFLAGGED'])
    expect([...history].sort((a, b) => a.at.localeCompare(b.at))).toEqual(history)
    expect(limits.phone_numbers.find(number => number.phone_number_id === OTHER_NUMBER)!.quality_history.filter(signal => signal.event)).toEqual([])
  }, 60_000)

  it('a FLAGGED again during the recovery holds it back; a person\'s resume of a guard pause holds until the next signal', async () => {
    const { gateway, workspace } = ctx
    const id = await runningCampaign(gateway, workspace, 100, 11_000)
    await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'FLAGGED' })
    await campaignBecomes(gateway, workspace, id, 'paused', 'number_flagged')
    // resumed by hand: it runs though the number is still flagged
    expect((await act(gateway, workspace, id, 'resume')).statusCode).toBe(200)
    await sleep(2500)
    expect((await guarded(gateway, workspace, id)).status).toBe('running')
    // the next signal pauses it again
    await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'FLAGGED' })
    await campaignBecomes(gateway, workspace, id, 'paused', 'number_flagged')
    await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'UNFLAGGED' })
    await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'FLAGGED' })
    await sleep(2500)
    expect((await guarded(gateway, workspace, id)).status).toBe('paused')
    await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'UNFLAGGED' })
    await campaignBecomes(gateway, workspace, id, 'running', null)
  }, 60_000)

  it('a template PAUSED pauses its campaigns (template_paused), APPROVED resumes them; quality RED (template_quality_red), GREEN resumes', async () => {
    const { gateway, workspace } = ctx
    const id = await runningCampaign(gateway, workspace, 100, 12_000, { template: 'order_confirmation' })
    const otherTemplate = await runningCampaign(gateway, workspace, 100, 12_200)
    expect(await gateway.emulator.sendTemplateStatusUpdate({ wabaId: WABA, name: 'order_confirmation', language: 'en_US', event: 'PAUSED' })).toBe(200)
    await campaignBecomes(gateway, workspace, id, 'paused', 'template_paused')
    expect((await guarded(gateway, workspace, otherTemplate)).status).toBe('running')
    expect(await gateway.emulator.sendTemplateStatusUpdate({ wabaId: WABA, name: 'order_confirmation', language: 'en_US', event: 'APPROVED' })).toBe(200)
    await campaignBecomes(gateway, workspace, id, 'running', null)

    expect(await gateway.emulator.sendTemplateQualityUpdate({ wabaId: WABA, name: 'order_confirmation', language: 'en_US', score: 'RED' })).toBe(200)
    await campaignBecomes(gateway, workspace, id, 'paused', 'template_quality_red')
    await sleep(2000)
    expect((await guarded(gateway, workspace, id)).status).toBe('paused')
    expect(await gateway.emulator.sendTemplateQualityUpdate({ wabaId: WABA, name: 'order_confirmation', language: 'en_US', score: 'YELLOW', previous: 'RED' })).toBe(200)
    await campaignBecomes(gateway, workspace, id, 'running', null)
    expect(await auditOf(gateway, workspace, id, 'campaign.paused')).toHaveLength(2)
    expect(await auditOf(gateway, workspace, id, 'campaign.resumed')).toHaveLength(2)
  }, 60_000)

  it('a failure rate over the window pauses (failure_rate) and never resumes by itself; a person\'s resume counts afresh', async () => {
    const { gateway, workspace } = ctx
    // the first 12 recipients fail with 131050 (opted out), the rest are delivered
    for (let n = 0; n < 12; n++) gateway.emulator.setStatusOptions({ recipient: `1777${String(14_000 + n).padStart(7, '0')}` }, { failWith: { code: 131050 } })
    const id = await runningCampaign(gateway, workspace, 60, 14_000)
    const paused = await campaignBecomes(gateway, workspace, id, 'paused', 'failure_rate', 20_000)
    expect(paused.counts.failed).toBeGreaterThan(2)
    await sleep(2500)
    expect((await guarded(gateway, workspace, id)).status).toBe('paused')
    expect((await act(gateway, workspace, id, 'resume')).statusCode).toBe(200)
    await sleep(2500)
    expect((await guarded(gateway, workspace, id)).paused_reason).toBeNull()
  }, 60_000)
  it('a tier drop pauses only campaigns whose remaining recipients exceed limit − used_24h (tier_downgraded); they resume at once when they fit', async () => {
    const { gateway, workspace } = ctx
    const small = await runningCampaign(gateway, workspace, 3, 13_000)
    const big = await runningCampaign(gateway, workspace, 150, 13_100)
    // a limit of what is used now and 60: room for the small one's 3, not for the big one's ~150
    const used = (await limitsOf(gateway, workspace)).find(number => number.phone_number_id === NUMBER)!.messaging_limit.used_24h
    expect(await gateway.emulator.sendMessagingLimitUpdate({ wabaId: WABA, tier: String(used + 60) })).toBe(200)
    await campaignBecomes(gateway, workspace, big, 'paused', 'tier_downgraded')
    const smallNow = await guarded(gateway, workspace, small)
    expect(smallNow.paused_reason).toBeNull()
    // the limit back up: the remaining recipients fit, it goes on at once
    expect(await gateway.emulator.sendMessagingLimitUpdate({ wabaId: WABA, tier: 'TIER_2K' })).toBe(200)
    await campaignBecomes(gateway, workspace, big, 'running', null)
  }, 60_000)
})
