import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/store/ids.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { Browser, userIn } from './helpers.js'

describe('a dashboard user sees only their own workspace', () => {
  let gateway: TestGateway
  let mine: ConnectedWorkspace
  let browser: Browser
  let theirs: { workspaceId: string, keyId: string, secret: string, messageId: string, wamid: string }

  beforeAll(async () => {
    gateway = await startGateway()
    mine = await connectedWorkspace(gateway)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, mine.workspaceId))

    // Another workspace with a key, a logged message and an inbound message of its own.
    const { app } = gateway
    const workspace = await app.workspaces.create('Theirs', 'growth')
    const { key, secret } = await app.keys.create(workspace.id, 'their-key')
    const wamid = 'wamid.THEIRS0001'
    const record = (await app.messages.create({ id: newId('msg'), workspaceId: workspace.id, apiKeyId: key.id, phoneNumberId: '999', recipient: '15559990000', type: 'text', payload: { text: { body: 'their secret text' } } })).record
    await app.messages.markSent(record.id, { wamid, attempts: 1 })
    await app.inbound.insert({ workspaceId: workspace.id, phoneNumberId: '999', wamid: 'wamid.THEIRINBOUND', from: '15559990001', type: 'text', payload: { text: { body: 'their inbound' } }, receivedAt: new Date() })
    theirs = { workspaceId: workspace.id, keyId: key.id, secret, messageId: record.id, wamid }
  })
  afterAll(async () => { await gateway.close() })

  it('answers 404 for another workspace\'s message, as a page and as JSON', async () => {
    const page = await browser.get(`/dashboard/messages/${theirs.messageId}`)
    expect(page.statusCode).toBe(404)
    expect(page.body).not.toContain('their secret text')
    const json = await browser.get(`/dashboard/messages/${theirs.messageId}/status`)
    expect(json.statusCode).toBe(404)
    expect(json.json()).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('answers 404 to revoking another workspace\'s key, which keeps working', async () => {
    const response = await browser.post(`/dashboard/keys/${theirs.keyId}/revoke`)
    expect(response.statusCode).toBe(404)
    expect((await gateway.app.keys.get(theirs.keyId))?.revokedAt).toBeNull()
    expect((await gateway.app.keys.verify(theirs.secret))?.workspaceId).toBe(theirs.workspaceId)
  })

  it('lists, searches and polls only its own messages, keys and inbound messages', async () => {
    const listed = [
      await browser.get('/dashboard/messages'),
      await browser.get(`/dashboard/messages?q=${theirs.wamid}`),
      await browser.get('/dashboard/messages?q=15559990000'),
      await browser.get(`/dashboard/messages?q=${theirs.messageId}`)
    ]
    for (const page of listed) {
      expect(page.statusCode).toBe(200)
      expect(page.body).not.toContain(`data-id="${theirs.messageId}"`)
    }
    const live = await browser.get(`/dashboard/messages.json?q=${theirs.wamid}`)
    expect(live.json()).toEqual({ ok: true, messages: [] })
    const keys = await browser.get('/dashboard/keys')
    expect(keys.body).not.toContain('their-key')
    expect(keys.body).toContain(mine.apiKeyId)
    expect((await browser.get('/dashboard/inbound')).body).not.toContain('their inbound')
  })

  it('never takes a workspace from the request: a workspace id in the query changes nothing', async () => {
    const page = await browser.get(`/dashboard/messages?workspace=${theirs.workspaceId}&workspace_id=${theirs.workspaceId}`)
    expect(page.statusCode).toBe(200)
    expect(page.body).not.toContain(`data-id="${theirs.messageId}"`)
  })
})
