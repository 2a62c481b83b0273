import cookie from '@fastify/cookie'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { SignInRequired } from '../src/dashboard/errors.js'
import { unauthorized } from '../src/errors.js'
import type { AlsoInTransaction } from '../src/store/also.js'
import type { Session, SessionContext } from '../src/store/sessions.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** the signed-in user, their session and workspace: set on routes with `config.dashboard` 'page' or 'json' */
    account: SessionContext
  }
  interface FastifyInstance {
    /** the live session the request's cookie opens, if any */
    currentAccount (request: FastifyRequest): Promise<SessionContext | undefined>
    /** a new session for the user, replacing the request's own (a fresh token on every sign-in); `also` commits with it */
    startSession (request: FastifyRequest, reply: FastifyReply, userId: string, also?: AlsoInTransaction<Session>): Promise<void>
    endSession (request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
  interface FastifyContextConfig {
    /** 'page': HTML that needs a session (else a redirect to sign-in); 'json': needs a session (else 401); 'public': sign-in itself */
    dashboard?: 'page' | 'json' | 'public'
  }
}

export const SESSION_COOKIE = 'outbound_session'
/** A session ends after this long unused … */
export const SESSION_IDLE_MS = 12 * 60 * 60_000
/** … and this long after sign-in in any case. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60_000
// Extending on every request would be a write per page view; every ten minutes is plenty.
const EXTEND_EVERY_MS = 10 * 60_000

/** Dashboard sessions in the database behind an httpOnly, SameSite=Strict cookie (Secure over https). */
export default fp(async function session (app) {
  await app.register(cookie)
  app.decorateRequest('account')

  app.decorate('currentAccount', async function currentAccount (request: FastifyRequest) {
    const token = request.cookies[SESSION_COOKIE]
    return token ? await app.sessions.find(token) : undefined
  })

  app.decorate('startSession', async function startSession (request: FastifyRequest, reply: FastifyReply, userId: string, also?: AlsoInTransaction<Session>) {
    const previous = request.cookies[SESSION_COOKIE]
    if (previous) await app.sessions.delete(previous)
    const { token } = await app.sessions.create(userId, new Date(Date.now() + SESSION_IDLE_MS), also)
    reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request), maxAge: SESSION_MAX_AGE_MS / 1000 })
  })

  app.decorate('endSession', async function endSession (request: FastifyRequest, reply: FastifyReply) {
    const token = request.cookies[SESSION_COOKIE]
    if (token) await app.sessions.delete(token)
    reply.clearCookie(SESSION_COOKIE, cookieOptions(request))
  })

  async function requireSession (request: FastifyRequest): Promise<void> {
    const account = await app.currentAccount(request)
    const page = request.routeOptions.config.dashboard === 'page'
    // Only a page is worth coming back to: a form posted after the session ended is filled in again.
    if (!account) throw page ? new SignInRequired(request.method === 'GET' ? request.url : undefined) : unauthorized('Sign in to the dashboard first')
    request.account = account
    // A page left open polls its JSON endpoint: that is not someone using the dashboard.
    if (page) await extend(account)
  }

  async function extend ({ session }: SessionContext): Promise<void> {
    const now = Date.now()
    if (session.expiresAt.getTime() - now > SESSION_IDLE_MS - EXTEND_EVERY_MS) return
    const expiresAt = Math.min(now + SESSION_IDLE_MS, session.createdAt.getTime() + SESSION_MAX_AGE_MS)
    if (expiresAt > session.expiresAt.getTime()) await app.sessions.extend(session.id, new Date(expiresAt))
  }

  app.addHook('onRoute', function protectDashboard (route: RouteOptions) {
    const kind = route.config?.dashboard
    if (kind === 'page' || kind === 'json') route.onRequest = [route.onRequest ?? []].flat().concat(requireSession)
  })
}, { name: 'session', dependencies: ['db'] })

export function cookieOptions (request: FastifyRequest) {
  return { path: '/dashboard', httpOnly: true, sameSite: 'strict' as const, secure: request.protocol === 'https' }
}
