import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { cookieOf, csrfOf, form, userIn, type Login } from './helpers.js'

/** Behind the CSRF token, a second line: a dashboard POST that says it came from another origin is refused. */
describe('dashboard POSTs from another origin are refused, whatever token they carry', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace
  let login: Login
  let session: string

  beforeAll(async () => {
    gateway = await startGateway({ env: { PUBLIC_URL: 'https://outbound.example.test' } })
    workspace = await connectedWorkspace(gateway)
    login = await userIn(gateway.app, workspace.workspaceId)
    const signIn = await post('/dashboard/login', {}, await signInFields())
    expect(signIn.statusCode).toBe(303)
    session = cookieOf(signIn, 'outbound_session')!
  })
  afterAll(async () => { await gateway.close() })

  async function signInFields () {
    const page = await gateway.app.inject({ url: '/dashboard/login' })
    return { cookie: `outbound_signin_csrf=${cookieOf(page, 'outbound_signin_csrf')}`, fields: { email: login.email, password: login.password, _csrf: csrfOf(page.body) } }
  }

  async function post (url: string, headers: Record<string, string>, { cookie, fields }: { cookie: string, fields: Record<string, string> }) {
    const body = form(fields)
    return await gateway.app.inject({ method: 'POST', url, ...body, headers: { ...body.headers, host: 'gateway.internal:3000', cookie, ...headers } })
  }

  async function keyForm (name: string) {
    const page = await gateway.app.inject({ url: '/dashboard/keys', headers: { cookie: `outbound_session=${session}` } })
    return { cookie: `outbound_session=${session}`, fields: { name, _csrf: csrfOf(page.body) } }
  }

  it('refuses a foreign Origin, or a foreign Referer without an Origin, with a 403 that changes nothing', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' }, { origin: 'null' }, { origin: 'https://outbound.example.test.evil.example' }, { origin: 'http://gateway.internal:3001' },
      { referer: 'https://evil.example/dashboard/keys' }, { referer: 'not a url' }, { origin: 'https://evil.example', referer: 'https://outbound.example.test/dashboard/keys' }
    ]
    for (const headers of foreign) {
      const response = await post('/dashboard/keys', headers, await keyForm('forged'))
      expect(response.statusCode, JSON.stringify(headers)).toBe(403)
      expect(response.body).toContain('did not come from this dashboard')
      const signIn = await post('/dashboard/login', headers, await signInFields())
      expect(signIn.statusCode, `sign-in ${JSON.stringify(headers)}`).toBe(403)
      // an upload's token is read by the route from its multipart body: its origin is checked before
      const upload = await post('/dashboard/campaigns/upload', headers, await keyForm('upload'))
      expect(upload.statusCode, `upload ${JSON.stringify(headers)}`).toBe(403)
    }
    expect((await gateway.app.keys.list(workspace.workspaceId)).map(key => key.name)).toEqual(['test'])
  })

  it('takes PUBLIC_URL\'s origin, the request\'s own host, or no Origin and no Referer at all (the token still guards those)', async () => {
    const own: Record<string, string>[] = [
      { origin: 'https://outbound.example.test' }, { origin: 'http://gateway.internal:3000' }, { origin: 'https://gateway.internal:3000' },
      { referer: 'https://outbound.example.test/dashboard/keys?x=1' }, { referer: 'http://gateway.internal:3000/dashboard/keys' }, {}
    ]
    for (const [index, headers] of own.entries()) {
      expect((await post('/dashboard/keys', headers, await keyForm(`own ${index}`))).statusCode, JSON.stringify(headers)).toBe(201)
    }
    expect((await post('/dashboard/login', { origin: 'https://outbound.example.test' }, await signInFields())).statusCode).toBe(303)
  })

  it('keeps the session in a SameSite=Strict cookie', async () => {
    const signIn = await post('/dashboard/login', {}, await signInFields())
    expect(signIn.cookies.find(cookie => cookie.name === 'outbound_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' })
  })
})
