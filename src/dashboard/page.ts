import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SafeHtml } from './html.js'
import { layout, type NavKey } from './layout.js'
import type { Notice } from './parts.js'

// What a redirect after an action may announce: fixed texts, so no query string is ever reflected.
const DONE: Record<string, Notice> = {
  connected: { kind: 'success', text: 'Number connected. Templates were synced and the webhook registered.' },
  'connected-webhook-pending': { kind: 'warning', text: 'Number connected and templates synced, but the webhook could not be registered yet: it is retried every 30 s. Statuses arrive once it is.' },
  disconnected: { kind: 'success', text: 'Disconnected. Sends now get 409 until a number is connected again.' },
  revoked: { kind: 'success', text: 'API key revoked. Requests with it get 401 from now on.' },
  synced: { kind: 'success', text: 'Templates synced from WhatsApp.' },
  'endpoint-removed': { kind: 'success', text: 'Webhook endpoint removed. Nothing more is sent to it.' },
  'test-sent': { kind: 'success', text: 'Test event queued: its delivery appears below within a moment.' },
  replayed: { kind: 'success', text: 'Delivery queued again, with the same webhook-id and body.' },
  'relay-removed': { kind: 'success', text: 'Relay removed. Nothing more is sent to it.' },
  'relay-replayed': { kind: 'success', text: 'Relay delivery queued again, with the same bytes and delivery id.' },
  'retention-saved': { kind: 'success', text: 'Retention saved. Content older than that is removed by the next retention sweep (hourly by default).' },
  'erasure-requested': { kind: 'success', text: 'Erasure requested. It completes within a minute: its counts appear below.' },
  'queue-cancelled': { kind: 'success', text: 'Queued messages cancelled: they end failed (cancelled) and are not sent.' }
}

export interface PageOptions { title: string, active?: NavKey, notice?: Notice }

/** A signed-in page: the frame comes from the request's session, the notice from `?done=` unless given. */
export function page (request: FastifyRequest, options: PageOptions, content: SafeHtml): SafeHtml {
  const { user, workspace, session } = request.account
  const done = (request.query as { done?: unknown } | undefined)?.done
  return layout({
    title: options.title,
    active: options.active,
    email: user.email,
    workspace,
    csrfToken: session.csrfToken,
    notice: options.notice ?? (typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : undefined)
  }, content)
}

export function sendHtml (reply: FastifyReply, markup: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(markup.markup)
}
