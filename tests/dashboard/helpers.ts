import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { createUser } from '../../src/dashboard/accounts.js'

export interface Login { email: string, password: string }

/** A dashboard user in the workspace, with the password `outbound user create` would print. */
export async function userIn (app: FastifyInstance, workspaceId: string, email = `user-${Math.random().toString(36).slice(2, 10)}@example.test`): Promise<Login> {
  const { user, password } = await createUser(app, { workspaceId, email })
  return { email: user.email, password }
}

/** The `_csrf` value of the first form on a page. */
export function csrfOf (html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1]
  if (!token) throw new Error('no CSRF token on the page')
  return token
}

export function cookieOf (response: LightMyRequestResponse, name: string): string | undefined {
  return response.cookies.find(cookie => cookie.name === name)?.value
}

export function form (fields: Record<string, string>) {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() }
}

/** What a browser does: fetch the sign-in form (its token cookie), post it. */
export async function attemptSignIn (app: FastifyInstance, login: Login, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const page = await app.inject({ url: '/dashboard/login', headers })
  const token = cookieOf(page, 'outbound_signin_csrf')!
  const body = form({ email: login.email, password: login.password, _csrf: csrfOf(page.body) })
  return await app.inject({ method: 'POST', url: '/dashboard/login', ...body, headers: { ...body.headers, ...headers, cookie: `outbound_signin_csrf=${token}` } })
}

/** A signed-in browser: its session cookie on every request, and the session's CSRF token for forms. */
export class Browser {
  constructor (readonly app: FastifyInstance, readonly session: string) {}

  static async signIn (app: FastifyInstance, login: Login): Promise<Browser> {
    const response = await attemptSignIn(app, login)
    const session = cookieOf(response, 'outbound_session')
    if (response.statusCode !== 303 || !session) throw new Error(`sign-in failed: ${response.statusCode}`)
    return new Browser(app, session)
  }

  get cookie (): string {
    return `outbound_session=${this.session}`
  }

  async get (url: string): Promise<LightMyRequestResponse> {
    return await this.app.inject({ url, headers: { cookie: this.cookie } })
  }

  /** Posts the form as the page at `from` would, its token included unless `csrf` says otherwise. */
  async post (url: string, fields: Record<string, string> = {}, options: { from?: string, csrf?: string | false } = {}): Promise<LightMyRequestResponse> {
    const token = options.csrf ?? csrfOf((await this.get(options.from ?? '/dashboard')).body)
    const body = form(token === false ? fields : { ...fields, _csrf: token })
    return await this.app.inject({ method: 'POST', url, ...body, headers: { ...body.headers, cookie: this.cookie } })
  }
}
