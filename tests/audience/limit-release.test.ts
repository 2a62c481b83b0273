import { describe, expect, it } from 'vitest'
import type { ConnectedWorkspace, TestGateway } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { api, messageOf, sendTo, sentTo, UTILITY, WABA } from './helpers.js'

async function limitOf (gateway: TestGateway, workspace: ConnectedWorkspace): Promise<number | null> {
  const numbers = (await api(gateway, workspace, 'GET', '/api/limits.php')).json().phone_numbers as Array<{ messaging_limit: { limit: number | null } }>
  return numbers[0].messaging_limit.limit
}

async function tierBecomes (gateway: TestGateway, workspace: ConnectedWorkspace, tier: string, limit: number | null): Promise<void> {
  expect(await gateway.emulator.sendMessagingLimitUpdate({ wabaId: WABA, tier })).toBe(200)
  await waitFor(async () => await limitOf(gateway, workspace) === limit, { timeoutMs: 15_000, what: `limit ${String(limit)}` })
}

const isSent = (status: unknown) => ['sent', 'delivered', 'read'].includes(String(status))

/** CONTRACT.md 14: a queued send held by the messaging limit "goes when a slot frees", and a higher tier frees slots. */
describe('audience: held sends released when the tier rises', () => {
  const ctx = useGateway()

  it('a send held by the limit goes soon after a tier webhook raises the limit, not at the next slot 24 h on', async () => {
    const { gateway, workspace } = ctx
    await tierBecomes(gateway, workspace, '1', 1)
    expect((await sendTo(gateway, workspace, '15558100001', UTILITY)).statusCode).toBe(200)
    const queued = await sendTo(gateway, workspace, '15558100002', UTILITY, { prefer: 'respond-async' })
    expect(queued.statusCode).toBe(202)
    const id = queued.json().id as string
    await waitFor(async () => (await messageOf(gateway, workspace, id)).held_reason === 'messaging_limit', { timeoutMs: 15_000, what: 'held by the limit' })

    await tierBecomes(gateway, workspace, 'TIER_250', 250)
    // generous: the contract's "goes when a slot frees" is met in well under a second or two
    const sent = await waitFor(async () => { const message = await messageOf(gateway, workspace, id); return isSent(message.status) ? message : undefined }, { timeoutMs: 5_000, what: 'the held send sent after the rise' })
    expect(sent.held_reason).toBeNull()
    expect(sentTo(gateway, '15558100002')).toBe(1)
  })
})
