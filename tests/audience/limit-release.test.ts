import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { buildApp } from '../../src/app.js'
import { testConfig } from '../helpers/config.js'
import { freePort, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
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

/**
 * Held, and its job put off until the next slot: a rise that lands while the drain is still holding
 * it (between its decision and its job's deferral) is not seen yet (docs/decisions/035-queue-limit-release.md).
 */
async function heldAndDeferred (gateway: TestGateway, workspace: ConnectedWorkspace, id: string): Promise<void> {
  await waitFor(async () => (await messageOf(gateway, workspace, id)).held_reason === 'messaging_limit', { timeoutMs: 15_000, what: 'held by the limit' })
  await waitFor(async () => {
    return rowsOf(await gateway.app.database.db.execute(sql`select 1 from jobs where payload = convert_to(${id}, 'UTF8') and status = 'ready' and run_at > now()`)).length > 0
  }, { timeoutMs: 15_000, what: 'its job put off' })
}

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
    await heldAndDeferred(gateway, workspace, id)

    await tierBecomes(gateway, workspace, 'TIER_250', 250)
    // generous: the contract's "goes when a slot frees" is met in well under a second or two
    const sent = await waitFor(async () => { const message = await messageOf(gateway, workspace, id); return isSent(message.status) ? message : undefined }, { timeoutMs: 5_000, what: 'the held send sent after the rise' })
    expect(sent.held_reason).toBeNull()
    expect(sentTo(gateway, '15558100002')).toBe(1)
  })

  it('a slot given back wakes the oldest held send only; one that still finds no slot is held again', async () => {
    const { gateway, workspace } = ctx
    await tierBecomes(gateway, workspace, '1', 1)
    const ids = await Promise.all(['15558100003', '15558100004'].map(async to => (await sendTo(gateway, workspace, to, UTILITY, { prefer: 'respond-async' })).json().id as string))
    for (const id of ids) await heldAndDeferred(gateway, workspace, id)
    // what a give-back does once the slot is free again (plugins/audience.ts)
    expect(await gateway.app.holds.releaseLimit(WABA, 1)).toBe(1)
    await new Promise(resolve => setTimeout(resolve, 1000))
    for (const id of ids) expect(await messageOf(gateway, workspace, id)).toMatchObject({ status: 'held', held_reason: 'messaging_limit' })
  })
})

/** The same with two processes on PostgreSQL: the webhook lands in one, the other drains the number. */
describe.runIf(process.env.TEST_DATABASE_URL)('audience: held sends released when the tier rises, two processes (PostgreSQL)', () => {
  const ctx = useGateway()
  let other: Awaited<ReturnType<typeof buildApp>> | undefined
  afterAll(async () => { await other?.close() })

  it('the process that did not apply the webhook sends the held send soon after', async () => {
    const { gateway, workspace } = ctx
    await tierBecomes(gateway, workspace, '1', 1)
    expect((await sendTo(gateway, workspace, '15558200001', UTILITY)).statusCode).toBe(200)
    const port = await freePort()
    other = await buildApp({ config: testConfig({ DATABASE_URL: gateway.database.url, PORT: String(port), GRAPH_API_URL: gateway.emulator.url, APP_SECRET: gateway.emulator.appSecret, TEMPLATE_SYNC_INTERVAL_MS: '0' }), logger: false })
    await other.listen({ port, host: '127.0.0.1' })
    const queued = await other.inject({ method: 'POST', url: '/api/messages.php', headers: { authorization: workspace.authorization, 'content-type': 'application/json', prefer: 'respond-async' }, payload: JSON.stringify({ to: '15558200002', ...UTILITY }) })
    expect(queued.statusCode).toBe(202)
    const id = queued.json().id as string
    await heldAndDeferred(gateway, workspace, id)

    // the webhook goes to the first process; it stops at once, so the other is left to drain the number
    await tierBecomes(gateway, workspace, 'TIER_250', 250)
    await gateway.app.close()
    const sent = await waitFor(async () => {
      const response = await other!.inject({ url: `/api/messages.php?id=${id}`, headers: { authorization: workspace.authorization } })
      const message = response.json().message as Record<string, unknown>
      return isSent(message.status) ? message : undefined
    }, { timeoutMs: 5_000, what: 'the held send sent after the rise' })
    expect(sent.held_reason).toBeNull()
    expect(sentTo(gateway, '15558200002')).toBe(1)
  })
})
