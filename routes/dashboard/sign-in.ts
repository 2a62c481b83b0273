import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors, audit } from '../../src/access/audit.js'
import { spendVerification, verifyPassword } from '../../src/crypto/password.js'
import { safeReturnPath } from '../../src/dashboard/errors.js'
import { sendHtml } from '../../src/dashboard/page.js'
import type { Notice } from '../../src/dashboard/parts.js'
import { SignInThrottle } from '../../src/dashboard/sign-in-throttle.js'
import { signInPage } from '../../src/dashboard/views/sign-in.js'
import { normalizeEmail } from '../../src/store/users.js'

const SignInBodySchema = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  _csrf: Type.Optional(Type.String())
})

/** Sign-in and sign-out. Failed attempts are throttled per address and email, and per address, before any password is hashed. */
const signIn: FastifyPluginAsyncTypebox = async function (app) {
  const throttle = new SignInThrottle(app.redis)

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

    // only failures count (a successful sign-in is not an attempt to guess); a limit reached refuses even the right password
    await app.requireSharedLimits()
    const retryAfter = await throttle.retryAfter(request.ip, normalizeEmail(email))
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter))
      const minutes = Math.ceil(retryAfter / 60)
      return refuse({ kind: 'error', title: 'Too many sign-in attempts', text: `Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.` }, 429)
    }
    const user = await app.users.byEmail(email)
    const valid = user ? await verifyPassword(password, user.passwordHash) : await spendVerification(password)
    if (!user || !valid) {
      await throttle.countFailure(request.ip, normalizeEmail(email))
      return refuse({ kind: 'error', text: 'Email or password is incorrect.' }, 401)
    }

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
