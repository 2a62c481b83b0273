import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Browser, userIn } from '../dashboard/helpers.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { act } from './helpers.js'
import { guarded, limitsOf, NUMBER, runningCampaign, sleep, campaignBecomes } from './helpers-guard.js'

/**
 * The hourly read of the number's node as a signal (quality_rating RED, then GREEN), the events
 * campaign.paused and campaign.resumed with C, and the dashboard's words for the reason (CONTRACT.md 21).
 */
describe('quality guard: the node read, the events, the dashboard', () => {
  let receiver: Receiver
  beforeAll(async () => { receiver = await startReceiver() })
  afterAll(async () => { await receiver?.close() })
  const ctx = useGateway({
    env: { THROUGHPUT_MPS: '5', PAIR_RATE_BURST: '1000', QUALITY_GUARD_RECOVERY_MS: '1000', NUMBER_REFRESH_INTERVAL_MS: '500', WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100' },
    setup: async (gateway, workspace) => { await subscribe(gateway.app, workspace!.workspaceId, receiver.url, ['campaign.paused', 'campaign.resumed']) }
  })

  it('RED at the read pauses (number_flagged), with its event and the dashboard saying why; GREEN resumes after the recovery time', async () => {
    const { gateway, workspace } = ctx
    const id = await runningCampaign(gateway, workspace, 100, 20_000)
    gateway.emulator.setQualityRating(NUMBER, 'RED')
    const paused = await campaignBecomes(gateway, workspace, id, 'paused', 'number_flagged')

    const login = await userIn(gateway.app, workspace.workspaceId)
    const browser = await Browser.signIn(gateway.app, login)
    const page = await browser.get(`/dashboard/campaigns/${id}`)
    expect(page.body).toContain('data-paused-reason="number_flagged"')
    expect(page.body).toMatch(/its number was flagged/)
    expect(page.body).toMatch(/resumes by itself once the number has been unflagged/)
    // and the live refresh says the same
    const live = (await browser.get(`/dashboard/campaigns/${id}/status`)).json() as { campaign: { paused_note: string | null } }
    expect(live.campaign.paused_note).toMatch(/its number was flagged.*unflagged/)

    const pausedEvent = await waitFor(async () => receiver.events().find(event => event.type === 'campaign.paused' && event.data.id === id), { what: 'campaign.paused' })
    expect(pausedEvent.data).toMatchObject({ id, status: 'paused', paused_reason: 'number_flagged', counts: { total: 100 } })
    expect(paused.paused_reason).toBe('number_flagged')

    // the same rating at the next reads is no new signal; GREEN starts the recovery
    await sleep(1200)
    gateway.emulator.setQualityRating(NUMBER, 'GREEN')
    await campaignBecomes(gateway, workspace, id, 'running', null)
    const resumedEvent = await waitFor(async () => receiver.events().find(event => event.type === 'campaign.resumed' && event.data.id === id), { what: 'campaign.resumed' })
    expect(resumedEvent.data).toMatchObject({ id, status: 'running', paused_reason: null })
    expect(((await browser.get(`/dashboard/campaigns/${id}/status`)).json() as { campaign: { paused_note: string | null } }).campaign.paused_note).toBeNull()
    expect(receiver.events().filter(event => event.type === 'campaign.paused' && event.data.id === id)).toHaveLength(1)

    const history = (await limitsOf(gateway, workspace)).find(number => number.phone_number_id === NUMBER)!.quality_history
    const ratings = history.filter(signal => signal.event === null).map(signal => signal.rating)
    expect(ratings).toContain('RED')
    expect(ratings.at(-1)).toBe('GREEN')
    await act(gateway, workspace, id, 'cancel')
  }, 60_000)
})

describe('quality guard: QUALITY_GUARD=off', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '5', PAIR_RATE_BURST: '1000', QUALITY_GUARD: 'off', QUALITY_GUARD_RECOVERY_MS: '1000' } })

  it('a FLAGGED number leaves its campaigns running; the history is kept', async () => {
    const { gateway, workspace } = ctx
    const id = await runningCampaign(gateway, workspace, 100, 21_000)
    expect(await gateway.emulator.sendQualityUpdate({ phoneNumberId: NUMBER, event: 'FLAGGED' })).toBe(200)
    await waitFor(async () => (await limitsOf(gateway, workspace)).find(number => number.phone_number_id === NUMBER)!.quality_history.some(signal => signal.event === 'FLAGGED'), { what: 'the FLAGGED signal applied' })
    await sleep(2000)
    const campaign = await guarded(gateway, workspace, id)
    expect(campaign.status).toBe('running')
    expect(campaign.paused_reason).toBeNull()
    await act(gateway, workspace, id, 'cancel')
  }, 60_000)
})
