import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { sameSecret } from '../src/crypto/constant-time.js'
import { csrfRejected } from '../src/dashboard/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * 'multipart-field': an upload form's token is its `_csrf` field, which only the route's own
     * reader sees (a multipart body is not parsed before it): the route checks it with
     * `checkFormToken` before reading the file. Every other form is checked here.
     */
    csrf?: 'multipart-field'
  }
  interface FastifyInstance {
    /** the sign-in form's token: kept in a cookie of its own, since there is no session yet */
    signInFormToken (request: FastifyRequest, reply: FastifyReply): string
  }
}

const SIGN_IN_COOKIE = 'outbound_signin_csrf'
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Every state-changing dashboard request carries a token the page gave it (form field `_csrf`, or
 * the `X-CSRF-Token` header): the session's synchronizer token, or for sign-in a double-submit
 * cookie. Compared in constant time before the body is validated; a mismatch is a 403.
 * Before it, a request whose Origin (or, without one, Referer) names another origin than the
 * dashboard's own (PUBLIC_URL's, or the Host it was sent to) is a 403 too; one naming neither is
 * left to the token (non-browser clients, old browsers).
 */
export default fp(async function csrf (app) {
  app.decorate('signInFormToken', function signInFormToken (request: FastifyRequest, reply: FastifyReply) {
    const existing = request.cookies[SIGN_IN_COOKIE]
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing
    const token = randomBytes(32).toString('base64url')
    reply.setCookie(SIGN_IN_COOKIE, token, { path: '/dashboard/login', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https', maxAge: 2 * 60 * 60 })
    return token
  })

  async function checkSessionToken (request: FastifyRequest): Promise<void> {
    if (!matches(presented(request), request.account.session.csrfToken)) throw csrfRejected()
  }

  async function checkSignInToken (request: FastifyRequest): Promise<void> {
    if (!matches(presented(request), request.cookies[SIGN_IN_COOKIE])) throw csrfRejected()
  }

  const publicOrigin = app.config.PUBLIC_URL ? new URL(app.config.PUBLIC_URL).origin : undefined
  async function checkOrigin (request: FastifyRequest): Promise<void> {
    const claimed = claimedOrigin(request)
    if (claimed === undefined || claimed === publicOrigin) return
    // by Host, either scheme: a proxy may end TLS in front of a server that does not trust it
    if (claimed !== `http://${request.host}` && claimed !== `https://${request.host}`) throw csrfRejected()
  }

  app.addHook('onRoute', function protectForms (route: RouteOptions) {
    const kind = route.config?.dashboard
    const methods = [route.method].flat()
    if (!kind || methods.every(method => SAFE_METHODS.has(method))) return
    route.onRequest = [route.onRequest ?? []].flat().concat(checkOrigin)
    if (route.config?.csrf === 'multipart-field') return
    route.preValidation = [route.preValidation ?? []].flat().concat(kind === 'public' ? checkSignInToken : checkSessionToken)
  })
}, { name: 'csrf', dependencies: ['session'] })

/** An upload's `_csrf` field (or the X-CSRF-Token header) against the session's token: 403 when they differ. */
export function checkFormToken (request: FastifyRequest, field: string | undefined): void {
  const header = request.headers['x-csrf-token']
  if (!matches(typeof header === 'string' ? header : field, request.account.session.csrfToken)) throw csrfRejected()
}

/** The origin a browser says the request came from: Origin, else Referer's; 'null' and an unreadable Referer name no origin of ours. */
function claimedOrigin (request: FastifyRequest): string | undefined {
  const { origin, referer } = request.headers
  if (origin !== undefined) return origin
  if (referer === undefined) return undefined
  return URL.canParse(referer) ? new URL(referer).origin : 'null'
}

function presented (request: FastifyRequest): string | undefined {
  const header = request.headers['x-csrf-token']
  if (typeof header === 'string') return header
  const field = (request.body as { _csrf?: unknown } | null | undefined)?._csrf
  return typeof field === 'string' ? field : undefined
}

function matches (presented: string | undefined, expected: string | undefined): boolean {
  return presented !== undefined && expected !== undefined && expected !== '' && sameSecret(presented, expected)
}
