import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiKeys } from '../../db/schema.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { Browser, userIn } from './helpers.js'

describe('Developer Studio: API keys in the dashboard', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser

  const secretOn = (html: string) => /id="new-secret" type="text" value="(obk_live_[^"]+)"/.exec(html)?.[1]
  const send = async (secret: string) => await gateway.app.inject({
    method: 'POST', url: '/api/messages.php', headers: { authorization: `Bearer ${secret}` }, payload: { to: '15551234567', body: 'key test' }
  })

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
  })
  afterAll(async () => { await gateway.close() })

  it('shows a new key\'s secret once, with a copy button and a warning, and never again', async () => {
    const created = await browser.post('/dashboard/keys', { name: 'billing' })
    expect(created.statusCode).toBe(201)
    expect(created.headers['cache-control']).toBe('no-store')
    const secret = secretOn(created.body)!
    expect(secret).toMatch(/^obk_live_/)
    expect(created.body).toContain('data-copy="new-secret"')
    expect(created.body).toContain('It is shown this once')
    expect((await send(secret)).statusCode).toBe(200)

    const later = await browser.get('/dashboard/keys')
    expect(later.body).not.toContain(secret)
    expect(secretOn(later.body)).toBeUndefined()
    const [key] = (await gateway.app.keys.list(workspace.workspaceId)).filter(candidate => candidate.name === 'billing')
    expect(later.body).toContain(`${key.prefix}…`)
    const stored = JSON.stringify(await gateway.app.database.db.select().from(apiKeys))
    expect(stored).not.toContain(secret)
  })

  it('escapes a key name that is markup, everywhere it appears', async () => {
    const name = '<script>alert("x")</script>&\'"'
    const created = await browser.post('/dashboard/keys', { name })
    const listed = await browser.get('/dashboard/keys')
    for (const page of [created.body, listed.body]) {
      expect(page).not.toContain('<script>alert')
      expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&quot;')
    }
  })

  it('asks for a name', async () => {
    const response = await browser.post('/dashboard/keys', { name: '   ' })
    expect(response.statusCode).toBe(422)
    expect(response.body).toContain('Give the key a name')
    expect(secretOn(response.body)).toBeUndefined()
  })

  it('revokes a key behind a confirmation: the next API request with it gets 401', async () => {
    const secret = secretOn((await browser.post('/dashboard/keys', { name: 'short-lived' })).body)!
    const key = (await gateway.app.keys.list(workspace.workspaceId)).find(candidate => candidate.name === 'short-lived')!
    const page = await browser.get('/dashboard/keys')
    expect(page.body).toMatch(new RegExp(`<details class="confirm">\\s*<summary[^>]*>Revoke…</summary>\\s*<form class="confirm-box" method="post" action="/dashboard/keys/${key.id}/revoke">`))

    const revoked = await browser.post(`/dashboard/keys/${key.id}/revoke`)
    expect(revoked.statusCode).toBe(303)
    expect(revoked.headers.location).toBe('/dashboard/keys?done=revoked')
    expect((await browser.get('/dashboard/keys?done=revoked')).body).toContain('API key revoked')
    const refused = await send(secret)
    expect(refused.statusCode).toBe(401)
    expect(refused.json()).toMatchObject({ ok: false, code: 'unauthorized' })
  })

  it('answers 404 for a key that does not exist', async () => {
    expect((await browser.post('/dashboard/keys/key_nope/revoke')).statusCode).toBe(404)
  })
})
