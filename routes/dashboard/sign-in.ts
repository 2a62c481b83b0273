import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { actors, audit } from '../../src/access/audit.js'
import { spendVerification, verifyPassword } from '../../src/crypto/password.js'
import { safeReturnPath } from '../../src/dashboard/errors.js'
import { sendHtml } from '../../src/dashboard/page.js'
import type { Notice } from '../../src/dashboard/parts.js'
import { signInPage } from '../../src/dashboard/views/sign-in.js'
import { normalizeEmail } from '../../src/store/users.js'

const SignInBodySchema = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  _csrf: Type.Optional(Type.String())
})

const WINDOW_MS = 15 * 60_000

/** Sign-in and sign-out. Attempts are throttled per address and email, and per address, before any password is hashed. */
const signIn: FastifyPluginAsyncTypebox = async function (app) {
  const emailOf = (request: FastifyRequest) => normalizeEmail(String((request.body as { email?: unknown }).email ?? ''))
  const limits = [
    app.createRateLimit({ max: 10, timeWindow: WINDOW_MS, keyGenerator: request => `signin:${request.ip}:${emailOf(request)}` }),
    app.createRateLimit({ max: 50, timeWindow: WINDOW_MS, keyGenerator: request => `signin:${request.ip}` })
  ]

  /** Seconds to wait when a limit is exceeded; every attempt counts, successful or not. */
  async function throttled (request: FastifyRequest): Promise<number | undefined> {
    for (const limit of limits) {
      const count = await limit(request)
      if (!count.isAllowed && count.isExceeded) return Math.max(1, count.ttlInSeconds)
    }
    return undefined
  }

  app.get('/login', {
    config: { dashboard: 'public' },
    schema: { querystring: Type.Object({ next: Type.Optional(Type.String()), signed_out: Type.Optional(Type.String()) }) }
  }, async function signInForm (request, reply) {
    const next = safeReturnPath(request.query.next)
    if (await app.currentAccount(request)) return reply.redirect(next ?? '/dashboard', 303)
    const notice: Notice | undefined = request.query.signed_out ? { kind: 'success', text: 'You have signed out.' } : undefined
    return sendHtml(reply, signInPage({ csrfToken: app.signInFormToken(request, reply), next, notice }))
  })

  app.post('/login', { config: { dashboard: 'public' }, schema: { body: SignInBodySchema } }, async function signIn (request, reply) {
    const { email, password } = request.body
    const next = safeReturnPath(request.body.next)
    const refuse = (notice: Notice, status: number) =>
      sendHtml(reply, signInPage({ csrfToken: app.signInFormToken(request, reply), email, next, notice }), status)

    const retryAfter = await throttled(request)
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter))
      const minutes = Math.ceil(retryAfter / 60)
      return refuse({ kind: 'error', title: 'Too many sign-in attempts', text: `Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.` }, 429)
    }
    const user = await app.users.byEmail(email)
    const valid = user ? await verifyPassword(password, user.passwordHash) : await spendVerification(password)
    if (!user || !valid) return refuse({ kind: 'error', text: 'Email or password is incorrect.' }, 401)

    await app.startSession(request, reply, user.id,
      audit.of(actors.dashboard(user.id, request.ip), 'user.signed_in', () => ({ workspaceId: user.workspaceId, target: { kind: 'user', id: user.id } })))
    await app.users.recordLogin(user.id)
    await app.sessions.deleteExpired()
    return reply.redirect(next ?? '/dashboard', 303)
  })

  app.post('/logout', { config: { dashboard: 'page' } }, async function signOut (request, reply) {
    await app.endSession(request, reply)
    return reply.redirect('/dashboard/login?signed_out=1', 303)
  })
}

export default signIn
