import { createHash } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessions, users } from '../../db/schema.js'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { attemptSignIn, Browser, cookieOf, userIn, type Login } from './helpers.js'

describe('dashboard sign-in, sessions and sign-out', () => {
  let gateway: TestGateway
  let workspaceId: string
  let login: Login

  // Behind a proxy (TRUST_PROXY): each test signs in from an address of its own, so throttling stays per test.
  const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...extra })
  const sessionRows = async () => await gateway.app.database.db.select().from(sessions)

  beforeAll(async () => {
    gateway = await startGateway({ env: { TRUST_PROXY: 'true' } })
    workspaceId = (await gateway.app.workspaces.create('Sign-in test', 'free')).id
    login = await userIn(gateway.app, workspaceId, 'Ops@Example.test')
  })
  afterAll(async () => { await gateway.close() })

  it('sends a visitor of a page to sign-in, coming back afterwards; JSON endpoints answer 401 in the envelope', async () => {
    const page = await gateway.app.inject({ url: '/dashboard/messages?status=read' })
    expect(page.statusCode).toBe(303)
    expect(page.headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fmessages%3Fstatus%3Dread')
    const json = await gateway.app.inject({ url: '/dashboard/messages.json' })
    expect(json.statusCode).toBe(401)
    expect(json.json()).toEqual({ ok: false, error: 'Sign in to the dashboard first', code: 'unauthorized' })

    const signIn = await gateway.app.inject({ url: '/dashboard/login?next=%2Fdashboard%2Fmessages%3Fstatus%3Dread' })
    expect(signIn.body).toContain('name="next" value="/dashboard/messages?status=read"')
  })

  it('signs in with the email in any case, into an httpOnly SameSite=Strict cookie whose token is stored only hashed', async () => {
    const response = await attemptSignIn(gateway.app, { email: ' OPS@example.TEST ', password: login.password }, from('10.0.0.1'))
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe('/dashboard')
    const cookie = response.cookies.find(candidate => candidate.name === 'outbound_session')!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' })
    expect(cookie.secure).toBeUndefined()
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const ids = (await sessionRows()).map(row => row.id)
    expect(ids).toContain(createHash('sha256').update(cookie.value).digest('hex'))
    expect(ids).not.toContain(cookie.value)
    const [user] = await gateway.app.database.db.select().from(users).where(eq(users.email, 'ops@example.test'))
    expect(user.lastLoginAt).toBeInstanceOf(Date)
    expect(user.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/)
  })

  it('marks the cookie Secure when the dashboard is reached over https', async () => {
    const response = await attemptSignIn(gateway.app, login, from('10.0.0.2', { 'x-forwarded-proto': 'https' }))
    expect(response.cookies.find(candidate => candidate.name === 'outbound_session')?.secure).toBe(true)
  })

  it('refuses a wrong password and an unknown email with the same words, and no session', async () => {
    const before = (await sessionRows()).length
    const wrong = await attemptSignIn(gateway.app, { email: login.email, password: 'wrong password' }, from('10.0.0.3'))
    const unknown = await attemptSignIn(gateway.app, { email: 'nobody@example.test', password: login.password }, from('10.0.0.3'))
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401)
      expect(response.body).toContain('Email or password is incorrect.')
      expect(cookieOf(response, 'outbound_session')).toBeUndefined()
    }
    expect(wrong.body).toContain(`value="${login.email}"`)
    expect((await sessionRows()).length).toBe(before)
  })

  it('goes back only to a dashboard path after signing in', async () => {
    const signInWith = async (next: string) => {
      const page = await gateway.app.inject({ url: '/dashboard/login', headers: from('10.0.0.4') })
      const token = cookieOf(page, 'outbound_signin_csrf')!
      return await gateway.app.inject({
        method: 'POST',
        url: '/dashboard/login',
        headers: { ...from('10.0.0.4'), cookie: `outbound_signin_csrf=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ email: login.email, password: login.password, next, _csrf: token }).toString()
      })
    }
    expect((await signInWith('/dashboard/keys')).headers.location).toBe('/dashboard/keys')
    for (const next of ['https://evil.example/', '//evil.example/dashboard', '/dashboard//evil.example', '/dashboards', '/docs']) {
      expect((await signInWith(next)).headers.location, next).toBe('/dashboard')
    }
  })

  it('throttles sign-in per address and email: the 11th attempt in 15 minutes is refused, even with the right password', async () => {
    const address = from('10.0.0.5')
    for (let attempt = 1; attempt <= 10; attempt++) {
      expect((await attemptSignIn(gateway.app, { email: login.email, password: `guess ${attempt}` }, address)).statusCode).toBe(401)
    }
    const refused = await attemptSignIn(gateway.app, login, address)
    expect(refused.statusCode).toBe(429)
    expect(refused.body).toContain('Too many sign-in attempts')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect(cookieOf(refused, 'outbound_session')).toBeUndefined()

    expect((await attemptSignIn(gateway.app, login, from('10.0.0.6'))).statusCode).toBe(303)
    const other = await userIn(gateway.app, workspaceId)
    expect((await attemptSignIn(gateway.app, other, address)).statusCode).toBe(303)
  })

  it('throttles an address trying many emails', async () => {
    const address = from('10.0.0.7')
    for (let attempt = 1; attempt <= 50; attempt++) {
      await attemptSignIn(gateway.app, { email: `guess${attempt}@example.test`, password: 'x' }, address)
    }
    expect((await attemptSignIn(gateway.app, login, address)).statusCode).toBe(429)
  }, 60_000)

  it('signs out: the session is deleted, the cookie cleared, and the old cookie opens nothing', async () => {
    const browser = await Browser.signIn(gateway.app, login)
    expect((await browser.get('/dashboard')).statusCode).toBe(200)
    const out = await browser.post('/dashboard/logout')
    expect(out.statusCode).toBe(303)
    expect(out.headers.location).toBe('/dashboard/login?signed_out=1')
    expect(out.cookies.find(cookie => cookie.name === 'outbound_session')?.value).toBe('')
    const id = createHash('sha256').update(browser.session).digest('hex')
    expect((await sessionRows()).map(row => row.id)).not.toContain(id)
    expect((await browser.get('/dashboard')).statusCode).toBe(303)
    expect((await gateway.app.inject({ url: '/dashboard/login?signed_out=1' })).body).toContain('You have signed out.')
  })

  it('ends a session at its expiry: pages redirect, JSON answers 401, and the next sign-in clears expired rows', async () => {
    const browser = await Browser.signIn(gateway.app, login)
    const id = createHash('sha256').update(browser.session).digest('hex')
    await gateway.app.database.db.update(sessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(sessions.id, id))
    expect((await browser.get('/dashboard/keys')).headers.location).toBe('/dashboard/login?next=%2Fdashboard%2Fkeys')
    expect((await browser.get('/dashboard/messages.json')).statusCode).toBe(401)
    await Browser.signIn(gateway.app, login)
    expect((await sessionRows()).map(row => row.id)).not.toContain(id)
  })

  it('extends a session in use, never beyond seven days after sign-in', async () => {
    const browser = await Browser.signIn(gateway.app, login)
    const id = createHash('sha256').update(browser.session).digest('hex')
    const expiry = async () => (await gateway.app.database.db.select().from(sessions).where(eq(sessions.id, id)))[0].expiresAt.getTime()
    await gateway.app.database.db.update(sessions).set({ expiresAt: sql`now() + interval '1 hour'` }).where(eq(sessions.id, id))
    await browser.get('/dashboard')
    expect(await expiry()).toBeGreaterThan(Date.now() + 11 * 3600_000)

    await gateway.app.database.db.update(sessions).set({ createdAt: sql`now() - interval '7 days' + interval '1 hour'`, expiresAt: sql`now() + interval '1 minute'` }).where(eq(sessions.id, id))
    await browser.get('/dashboard')
    expect(await expiry()).toBeLessThan(Date.now() + 3600_000 + 5_000)
  })
})
