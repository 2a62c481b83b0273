import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { handleError, toAppError } from '../error-handler.js'
import { AppError } from '../errors.js'
import { signInUrl, SignInRequired } from './errors.js'
import { html } from './html.js'
import { bareLayout } from './layout.js'
import { page, sendHtml } from './page.js'

const TITLES: Record<number, string> = { 403: 'Not allowed', 404: 'Not found', 413: 'Too large', 422: 'Check the form', 429: 'Too many attempts', 503: 'Temporarily unavailable' }

/**
 * The dashboard's error handler: JSON endpoints answer in the API's error envelope; pages answer
 * with a page that says what happened (or, without a session, a redirect to sign-in).
 */
export function dashboardErrorHandler (this: FastifyInstance, thrown: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (thrown instanceof SignInRequired) return reply.redirect(signInUrl(thrown.returnTo), 303)
  if (request.routeOptions.config?.dashboard === 'json') return handleError.call(this, thrown, request, reply)
  // a dependency that blinked is a 503 page with Retry-After, never a 500 (src/faults); Fastify's own
  // errors (415, 413, a bad body) in the words the API uses, never "Unsupported Media Type: undefined"
  const error = (toAppError(thrown, this.config.BODY_LIMIT_BYTES, request) ?? thrown) as FastifyError
  const status = statusOf(error)
  if (error instanceof AppError && error.extra.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.extra.retryAfterSeconds))
  if (status === 503) request.log.warn({ code: (error as AppError).code }, 'dashboard page unavailable')
  else if (status >= 500) request.log.error({ err: error }, 'dashboard page failed')
  const message = status === 503 ? error.message : status >= 500 ? 'Something went wrong on our side. It has been logged; try again in a moment.' : error.message
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request refused')
  const content = html`<div class="card error-page"><p>${message}</p><p><a href="/dashboard">Back to the overview</a></p></div>`
  if (request.account) return sendHtml(reply, page(request, { title }, content), status)
  return sendHtml(reply, bareLayout(title, html`<div class="auth-card"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard/login">Sign in</a></p></div>`), status)
}

function statusOf (error: FastifyError): number {
  if (error.validation) return 422
  const status = error.statusCode ?? 500
  return status >= 400 && status < 600 ? status : 500
}
