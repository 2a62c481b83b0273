import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { chatwootAccepts, delivery, entry, fromMeta, messageChange, ownWorkspace, type OwnWorkspace } from '../relay/helpers.js'
import { Browser, userIn } from './helpers.js'

describe('Developer Studio: relays in the dashboard', () => {
  let gateway: TestGateway
  let workspace: OwnWorkspace
  let browser: Browser
  let receiver: Receiver

  beforeAll(async () => {
    gateway = await startGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100' } })
    workspace = await ownWorkspace(gateway)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
    receiver = await startReceiver({ plan: [500, 500] })
  })
  afterAll(async () => {
    await gateway.close()
    await receiver.close()
  })

  it('adds a relay (an own secret shown once), lists its deliveries, replays one, refuses a bad field, removes it', async () => {
    const page = await browser.get('/dashboard/relays')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('aria-current="page">Relays')
    const refused = await browser.post('/dashboard/relays', { url: receiver.url, fields: 'messages, nope', signing: 'app' }, { from: '/dashboard/relays' })
    expect(refused.statusCode).toBe(422)
    expect(refused.body).toContain('unknown field')
    const created = await browser.post('/dashboard/relays', { url: receiver.url, fields: '', phone_number_ids: '', signing: 'own' }, { from: '/dashboard/relays' })
    expect(created.statusCode).toBe(201)
    const secret = /id="new-secret" type="text" value="(rls_[^"]+)"/.exec(created.body)?.[1]
    expect(secret).toMatch(/^rls_/)
    expect((await browser.get('/dashboard/relays')).body).not.toContain(secret)
    const [relay] = await gateway.app.relays.targets(workspace.workspaceId)

    expect(await fromMeta(gateway, JSON.stringify(delivery([entry(workspace.wabaId, [messageChange(workspace.phoneNumberIds[0], 'wamid.dash1')])])))).toBe(200)
    const [failed] = await waitFor(async () => { const rows = await gateway.app.relays.deliveries(workspace.workspaceId, { status: 'failed' }); return rows.length === 1 && rows })
    const listed = (await browser.get('/dashboard/relays')).body
    expect(listed).toContain(`data-delivery-id="${failed.id}"`)
    expect(listed).toContain('HTTP 500')
    expect((await browser.post(`/dashboard/relays/deliveries/${failed.id}/replay`, {}, { from: '/dashboard/relays' })).statusCode).toBe(303)
    await waitFor(async () => (await gateway.app.relays.delivery(failed.id))?.status === 'delivered', { what: 'the replayed delivery' })
    expect(chatwootAccepts(receiver.received.at(-1)!, secret!)).toBe(true)

    expect((await browser.post(`/dashboard/relays/${relay.id}/remove`, {}, { from: '/dashboard/relays' })).statusCode).toBe(303)
    expect(await gateway.app.relays.targets(workspace.workspaceId)).toEqual([])
    const actions = (await gateway.app.auditLog.page(workspace.workspaceId, { limit: 10 })).map(row => [row.action, row.actorKind])
    expect(actions).toEqual(expect.arrayContaining([['relay.added', 'dashboard'], ['relay.removed', 'dashboard']]))
  })
})
