import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { handOver, settled } from '../queue/helpers.js'
import { subscribe } from '../events/helpers.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { Browser, userIn } from './helpers.js'

/** The overview shows each number's queue; an operator cancels the workspace's queued messages. */
describe('dashboard: queued messages', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser
  let receiver: Receiver
  // one message per recipient a minute: later ones to the same recipient stay queued
  const PAIR = { burst: 1, intervalMs: 60_000 }

  beforeAll(async () => {
    gateway = await startGateway({
      env: { WEBHOOKS_ALLOW_PRIVATE: 'true', PAIR_RATE_BURST: String(PAIR.burst), PAIR_RATE_INTERVAL_MS: String(PAIR.intervalMs) },
      emulator: { pairRateBurst: PAIR.burst, pairRateIntervalMs: PAIR.intervalMs }
    })
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
    receiver = await startReceiver()
    await subscribe(gateway.app, workspace.workspaceId, receiver.url, ['message.failed'])
  })
  afterAll(async () => { await gateway?.close(); await receiver?.close() })

  it('shows depth, oldest and rate per number; cancel ends the queued ones failed `cancelled`, unsent', async () => {
    const empty = await browser.get('/dashboard')
    expect(empty.body).not.toContain('Queued messages')

    const to = '15556660001'
    const ids: string[] = []
    for (let index = 0; index < 4; index++) ids.push((await handOver(gateway, workspace, { to, body: `m${index}` })).json().id)
    expect((await settled(gateway, ids[0])).status).toBe('sent')

    const page = await browser.get('/dashboard')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Queued messages')
    expect(page.body).toMatch(/<td>3<\/td>/)
    expect(page.body).toContain('80 msg/s')
    expect(page.body).toContain('action="/dashboard/queue/cancel"')

    expect((await browser.post('/dashboard/queue/cancel', {}, { csrf: false })).statusCode).toBe(403)
    const cancelled = await browser.post('/dashboard/queue/cancel')
    expect(cancelled.statusCode).toBe(303)
    expect(cancelled.headers.location).toBe('/dashboard?done=queue-cancelled')
    for (const id of ids.slice(1)) expect(await gateway.app.messages.get(id)).toMatchObject({ status: 'failed', errorCode: 'cancelled', attempts: 0 })
    expect((await browser.get('/dashboard')).body).not.toContain('Queued messages')
    await waitFor(async () => (await gateway.app.queuedSends.depths(workspace.workspaceId)).length === 0, { what: 'an empty queue' })
    expect(gateway.emulator.sentMessages.filter(sent => sent.to === to)).toHaveLength(1)
    // each cancelled message tells the customer, as any failed one does
    const failedEvents = () => receiver.events().filter(event => event.type === 'message.failed')
    await waitFor(async () => failedEvents().length >= 3, { what: 'three message.failed events' })
    expect(failedEvents().map(event => event.data.id).sort()).toEqual(ids.slice(1).sort())
    expect(failedEvents().map(event => (event.data.error as { code?: string } | undefined)?.code)).toEqual(['cancelled', 'cancelled', 'cancelled'])
  })
})
