import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { attemptSignIn, Browser, cookieOf, csrfOf, form, userIn } from './helpers.js'

describe('dashboard forms are refused without the session\'s CSRF token', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let browser: Browser
  let other: Browser

  beforeAll(async () => {
    gateway = await startGateway()
    workspace = await connectedWorkspace(gateway)
    browser = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
    other = await Browser.signIn(gateway.app, await userIn(gateway.app, workspace.workspaceId))
  })
  afterAll(async () => { await gateway.close() })

  const forms: [string, Record<string, string>][] = [
    ['/dashboard/keys', { name: 'sneaky' }],
    [`/dashboard/keys/KEY/revoke`, {}],
    ['/dashboard/compose', { to: '15551234567', type: 'text', body: 'forged' }],
    ['/dashboard/connection', { waba_id: '1', access_token: 'x' }],
    ['/dashboard/disconnect', {}],
    ['/dashboard/templates/sync', {}],
    ['/dashboard/logout', {}]
  ]

  it('refuses every form posted without a token, with a wrong one, or with another session\'s, and changes nothing', async () => {
    const othersToken = csrfOf((await other.get('/dashboard')).body)
    for (const [path, fields] of forms) {
      const url = path.replace('KEY', workspace.apiKeyId)
      for (const csrf of [false, 'forged-token', othersToken] as const) {
        const response = await browser.post(url, fields, { csrf })
        expect(response.statusCode, `${url} with ${csrf}`).toBe(403)
        expect(response.headers['content-type']).toMatch(/^text\/html/)
        expect(response.body).toContain('This form has expired or did not come from this dashboard')
      }
    }
    expect((await gateway.app.keys.list(workspace.workspaceId)).map(key => key.name)).toEqual(['test'])
    expect((await gateway.app.keys.get(workspace.apiKeyId))?.revokedAt).toBeNull()
    expect(await gateway.app.messages.list(workspace.workspaceId)).toEqual([])
    expect(await gateway.app.connections.active(workspace.workspaceId)).toBeDefined()
    expect((await browser.get('/dashboard')).statusCode).toBe(200)
  })

  it('accepts the token as a form field or an X-CSRF-Token header', async () => {
    expect((await browser.post('/dashboard/keys', { name: 'by field' })).statusCode).toBe(201)
    const token = csrfOf((await browser.get('/dashboard/keys')).body)
    const body = form({ name: 'by header' })
    const response = await gateway.app.inject({ method: 'POST', url: '/dashboard/keys', ...body, headers: { ...body.headers, cookie: browser.cookie, 'x-csrf-token': token } })
    expect(response.statusCode).toBe(201)
  })

  it('protects the sign-in form with a token of its own (double-submit cookie)', async () => {
    const login = await userIn(gateway.app, workspace.workspaceId)
    const page = await gateway.app.inject({ url: '/dashboard/login' })
    const cookie = cookieOf(page, 'outbound_signin_csrf')!
    expect(page.cookies.find(candidate => candidate.name === 'outbound_signin_csrf')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard/login' })
    const post = async (headers: Record<string, string>, fields: Record<string, string>) => {
      const body = form({ email: login.email, password: login.password, ...fields })
      return await gateway.app.inject({ method: 'POST', url: '/dashboard/login', ...body, headers: { ...body.headers, ...headers } })
    }
    expect((await post({}, { _csrf: cookie })).statusCode).toBe(403)
    expect((await post({ cookie: `outbound_signin_csrf=${cookie}` }, {})).statusCode).toBe(403)
    expect((await post({ cookie: `outbound_signin_csrf=${cookie}` }, { _csrf: 'x'.repeat(43) })).statusCode).toBe(403)
    expect((await attemptSignIn(gateway.app, login)).statusCode).toBe(303)
  })
})
