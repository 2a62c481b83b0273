import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { startReceiver, type Receiver } from '../events/receiver.js'
import { Browser, userIn } from './helpers.js'

describe('Developer Studio: webhooks in the dashboard', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser
  let receiver: Receiver

  const secretOn = (html: string) => /id="new-secret" type="text" value="(whsec_[^"]+)"/.exec(html)?.[1]

  beforeAll(async () => {
    gateway = await startGateway({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100' } })
    workspace = await connectedWorkspace(gateway)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
    receiver = await startReceiver({ plan: [500, 500] })
  })
  afterAll(async () => {
    await gateway.close()
    await receiver.close()
  })

  it('adds an endpoint showing its secret once, sends a test event, shows attempts and answers, replays', async () => {
    const page = await browser.get('/dashboard/webhooks')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('aria-current="page">Webhooks')
    const created = await browser.post('/dashboard/webhooks', { url: receiver.url, events: 'message.sent' }, { from: '/dashboard/webhooks' })
    expect(created.statusCode).toBe(201)
    const secret = secretOn(created.body)!
    expect(secret).toMatch(/^whsec_/)
    expect(created.body).toContain('It is shown this once')
    expect((await browser.get('/dashboard/webhooks')).body).not.toContain(secret)
    const [endpoint] = await gateway.app.webhooks.endpoints(workspace.workspaceId)
    expect(endpoint.events).toEqual(['message.sent'])

    const tested = await browser.post(`/dashboard/webhooks/${endpoint.id}/test`, {}, { from: '/dashboard/webhooks' })
    expect(tested.statusCode).toBe(303)
    await waitFor(async () => (await gateway.app.webhooks.deliveries(workspace.workspaceId, { status: 'failed' })).length === 1, { what: 'failed delivery' })
    const [delivery] = await gateway.app.webhooks.deliveries(workspace.workspaceId)
    const listed = (await browser.get('/dashboard/webhooks')).body
    expect(listed).toContain(`data-delivery-id="${delivery.id}"`)
    expect(listed).toContain('HTTP 500')
    expect(listed).toContain(delivery.webhookId)

    expect((await browser.post(`/dashboard/webhooks/deliveries/${delivery.id}/replay`, {}, { from: '/dashboard/webhooks' })).statusCode).toBe(303)
    await waitFor(async () => (await gateway.app.webhooks.delivery(delivery.id))?.status === 'delivered', { what: 'replayed delivery' })
    const last = receiver.received.at(-1)!
    expect((new Webhook(secret).verify(last.body, last.headers as Record<string, string>) as { type: string }).type).toBe('webhook.test')
    expect((await browser.get('/dashboard/webhooks')).body).toContain('HTTP 200')

    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/remove`, {}, { from: '/dashboard/webhooks' })).statusCode).toBe(303)
    expect(await gateway.app.webhooks.endpoints(workspace.workspaceId)).toEqual([])
  })

  it('refuses a URL that is not https or is internal, with the reason beside the field', async () => {
    const strict = await startGateway()
    try {
      const other = await connectedWorkspace(strict)
      const signedIn = await Browser.signIn(strict.app, await userIn(strict.app, other.workspaceId))
      for (const url of ['http://example.com/hook', 'https://169.254.169.254/latest']) {
        const refused = await signedIn.post('/dashboard/webhooks', { url, events: 'message.sent' }, { from: '/dashboard/webhooks' })
        expect(refused.statusCode).toBe(422)
        expect(refused.body).toMatch(/field-url-error[^>]*>The URL /)
      }
    } finally {
      await strict.close()
    }
  })

  it('keeps another workspace\'s endpoints and deliveries out of reach (404)', async () => {
    const other = await gateway.app.workspaces.create('other', 'growth')
    const endpoint = await gateway.app.webhooks.addEndpoint({ workspaceId: other.id, url: receiver.url, events: ['message.sent'], secret: gateway.app.cipher.encrypt('whsec_dGVzdA==') })
    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/test`, {}, { from: '/dashboard/webhooks' })).statusCode).toBe(404)
    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/remove`, {}, { from: '/dashboard/webhooks' })).statusCode).toBe(404)
    expect((await browser.post('/dashboard/webhooks/deliveries/whd_nope/replay', {}, { from: '/dashboard/webhooks' })).statusCode).toBe(404)
  })

  it('puts every table of every page in a scrolling wrapper, so none widens its card', async () => {
    for (const path of ['/dashboard', '/dashboard/messages', '/dashboard/inbound', '/dashboard/templates', '/dashboard/connection', '/dashboard/keys', '/dashboard/webhooks']) {
      const body = (await browser.get(path)).body
      const tables = body.match(/<table/g)?.length ?? 0
      const wrapped = body.match(/<div class="table-wrap">\s*<table/g)?.length ?? 0
      expect(wrapped, path).toBe(tables)
    }
  })
})
