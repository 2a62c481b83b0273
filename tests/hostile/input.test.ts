import { describe, expect, it } from 'vitest'
import { attemptSignIn, Browser, cookieOf, csrfOf, form, userIn } from '../dashboard/helpers.js'
import { useGateway } from '../helpers/use-gateway.js'
import { rawRequest } from './raw-http.js'

/** encodeURIComponent, but a lone surrogate goes out as the bytes a careless client would send (CESU-8) rather than throwing. */
const encodeLoosely = (text: string) => [...text].map(char => /[\ud800-\udfff]/.test(char) ? '%ED%A0%80' : encodeURIComponent(char)).join('')
const json = (body: string) => JSON.parse(body) as { ok: boolean, code: string, error: string, field?: string }

describe('hostile query strings, paths and headers: a 4xx naming the value, on every route', () => {
  const ctx = useGateway()
  const get = async (target: string, headers: [string, string][] = []) =>
    await rawRequest(ctx.gateway.url, { target, headers: [['authorization', ctx.workspace.authorization], ...headers] })

  it.each([
    ['id=%00', 'id'], ['wamid=%00', 'wamid'], ['client_reference=a%00b', 'client_reference'], ['since=0000-01-01', 'since'],
    ['since=2024-02-30', 'since'], ['since=2024-01-01T24:00:00Z', 'since'], ['since=10000-01-01', 'since'], ['limit=1e309', 'limit'],
    ['limit=99999999999999999999999', 'limit'], ['id=%ED%A0%80', 'id'], ['id=%C0%AF', 'id'], ['id=%', 'id'], ['status=sent&status=read', 'status'],
  ])('GET /api/messages.php?%s → 422 naming %s', async (query, field) => {
    const response = await get(`/api/messages.php?${query}`)
    expect(response.status).toBe(422)
    expect(json(response.body)).toMatchObject({ ok: false, code: 'invalid_request', field })
    expect(json(response.body).error).toContain(field)
  })

  it('bytes that may not stand unencoded in a target (a raw lone surrogate, a raw €) are a 422 in the envelope', async () => {
    for (const target of ['/api/messages.php?id=\xed\xa0\x80', '/api/messages.php?id=\xe2\x82\xac', '/healthz/\xc0\xaf']) {
      const response = await get(target)
      expect(response.status, target).toBe(422)
      expect(json(response.body), target).toMatchObject({ ok: false, code: 'invalid_request' })
    }
  })

  it('a malformed path is a 422 in the envelope, not a 500 or a 404 (/healthz/%C0%AF, NUL, a lone surrogate)', async () => {
    for (const target of ['/healthz/%C0%AF', '/api/messages.php/%00', '/dashboard/messages/%ED%A0%80', '/%']) {
      const response = await rawRequest(ctx.gateway.url, { target })
      expect(response.status, target).toBe(422)
      expect(json(response.body), target).toMatchObject({ ok: false, code: 'invalid_request', field: 'path' })
    }
  })

  it('two Idempotency-Key headers: 422 naming it, nothing sent; two Authorization or Content-Type headers: a 4xx, nothing sent', async () => {
    const { emulator } = ctx.gateway
    const before = emulator.sentMessages.length
    const body = JSON.stringify({ to: '15551234567', body: 'twice' })
    const post = async (headers: [string, string][]) => await rawRequest(ctx.gateway.url, {
      method: 'POST', target: '/api/messages.php', body, headers: [['content-length', String(Buffer.byteLength(body))], ...headers]
    })
    const auth: [string, string] = ['authorization', ctx.workspace.authorization]
    const type: [string, string] = ['content-type', 'application/json']

    const keys = await post([auth, type, ['idempotency-key', 'a'], ['idempotency-key', 'b']])
    expect(keys.status).toBe(422)
    expect(json(keys.body)).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' })
    const auths = await post([auth, ['authorization', 'Bearer someone-else'], type])
    expect(auths.status).toBe(422)
    expect(json(auths.body)).toMatchObject({ code: 'invalid_request', field: 'Authorization' })
    const types = await post([auth, type, ['content-type', 'text/plain']])
    expect(types.status).toBe(422)
    expect(json(types.body)).toMatchObject({ code: 'invalid_request', field: 'Content-Type' })
    expect(emulator.sentMessages.length).toBe(before)
    // the same request, once each, is sent
    expect((await post([auth, type, ['idempotency-key', 'a']])).status).toBe(200)
  })

  it('dashboard pages answer hostile queries with an error page, never a 500', async () => {
    const { app } = ctx.gateway
    const browser = await Browser.signIn(app, await userIn(app, ctx.workspace.workspaceId))
    for (const target of ['/dashboard/messages?before=%00', '/dashboard/messages?q=%ED%A0%80', '/dashboard/audit?before=1&before=2', '/dashboard/messages/%00']) {
      const response = await rawRequest(ctx.gateway.url, { target, headers: [['cookie', browser.cookie]] })
      expect(response.status, target).toBe(422)
      expect(response.headers['content-type']?.[0], target).toContain('text/html')
      expect(response.body, target).toContain('Check the form')
    }
    const live = await rawRequest(ctx.gateway.url, { target: '/dashboard/messages.json?before=%00', headers: [['cookie', browser.cookie]] })
    expect(live.status).toBe(422)
    expect(json(live.body)).toMatchObject({ code: 'invalid_request', field: 'before' })
  })

  it('next= on sign-in is a safe local redirect or the home page, whatever it holds', async () => {
    const { app } = ctx.gateway
    const login = await userIn(app, ctx.workspace.workspaceId)
    const cases: [string, string][] = [
      ['/dashboard/€', '/dashboard/%E2%82%AC'], ['/dashboard/messages?q=é', '/dashboard/messages?q=%C3%A9'], ['/dashboard/messages?status=read', '/dashboard/messages?status=read'],
      ['//evil.example', '/dashboard'], ['/\\evil.example', '/dashboard'], ['https://evil.example/dashboard', '/dashboard'], ['/dashboard/../../evil', '/dashboard'],
      ['/dashboard/%2e%2e/x', '/dashboard'], ['/dashboard//evil.example', '/dashboard'], ['/dashboardx', '/dashboard'], ['/dashboard/\u0000', '/dashboard'],
      ['/dashboard/a\ud800', '/dashboard/a%EF%BF%BD'], ['javascript:alert(1)', '/dashboard']
    ]
    for (const [next, location] of cases) {
      const page = await app.inject({ url: `/dashboard/login?next=${encodeLoosely(next)}` })
      expect(page.statusCode, next).toBeLessThan(500)
      const fresh = await app.inject({ url: '/dashboard/login' })
      const body = form({ email: login.email, password: login.password, _csrf: csrfOf(fresh.body), next })
      const signIn = await app.inject({ method: 'POST', url: '/dashboard/login', ...body, headers: { ...body.headers, cookie: `outbound_signin_csrf=${cookieOf(fresh, 'outbound_signin_csrf')}` } })
      expect(signIn.statusCode, next).toBe(303)
      expect(signIn.headers.location, next).toBe(location)
    }
    // the form itself, reached with a raw € in the target, is refused as unencoded, not a 500
    const raw = await rawRequest(ctx.gateway.url, { target: '/dashboard/login?next=/dashboard/\xe2\x82\xac' })
    expect(raw.status).toBe(422)
    expect((await attemptSignIn(app, login)).statusCode).toBe(303)
  })

  it('dashboard forms with a NUL or another control character in a field are refused as a page naming the field, never a 500', async () => {
    const { app } = ctx.gateway
    const fresh = await app.inject({ url: '/dashboard/login' })
    for (const [field, value] of [['email', 'a%00b%40example.test'], ['password', 'x%01'], ['to', '1555%00']]) {
      const payload = `email=a%40example.test&password=x&_csrf=${encodeURIComponent(csrfOf(fresh.body))}&`.replace(new RegExp(`${field}=[^&]*&`), '') + `${field}=${value}`
      const response = await app.inject({ method: 'POST', url: '/dashboard/login', payload, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `outbound_signin_csrf=${cookieOf(fresh, 'outbound_signin_csrf')}` } })
      expect(response.statusCode, field).toBe(422)
      expect(response.body, field).toContain(field)
    }
  })
})
