import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint } from '../../store/webhooks.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, time } from '../parts.js'
import { endpointCell, lastAnswer } from './webhooks.js'

export interface DeliveryView {
  delivery: WebhookDelivery
  endpoint: WebhookEndpoint | undefined
  attempts: DeliveryAttempt[]
  csrfToken: string
}

const OUTCOMES: Record<string, string> = { delivered: 'delivered', pending: 'retried later', failed: 'gave up' }

/** One outgoing event to one endpoint: where it went, each attempt and its answer, and the body sent. */
export function deliveryContent ({ delivery, endpoint, attempts, csrfToken }: DeliveryView): SafeHtml {
  // attempts made before attempts were kept one by one have no row: only their count and last answer
  const unrecorded = delivery.attempts - attempts.length
  return html`
<p><a href="/dashboard/webhooks">← Webhooks</a></p>
<section class="card" aria-labelledby="delivery-heading">
  <div class="card-header">
    <h2 id="delivery-heading">${delivery.type}</h2>
    ${delivery.status !== 'pending' && html`<form method="post" action="/dashboard/webhooks/deliveries/${encodeURIComponent(delivery.id)}/replay">${csrfField(csrfToken)}<button type="submit" class="secondary small">Replay</button></form>`}
  </div>
  <dl class="facts">
    <dt>Status</dt><dd>${badge(delivery.status === 'pending' ? 'PENDING' : delivery.status, delivery.status)}</dd>
    <dt>Endpoint</dt><dd>${endpointCell(endpoint, delivery.endpointId)}</dd>
    <dt>webhook-id</dt><dd><code>${delivery.webhookId}</code></dd>
    <dt>Attempts</dt><dd>${delivery.attempts}</dd>
    <dt>Last answer</dt><dd>${lastAnswer(delivery)}</dd>
    <dt>Created</dt><dd>${time(delivery.createdAt)}</dd>
    ${delivery.status === 'delivered' && html`<dt>Delivered</dt><dd>${time(delivery.deliveredAt)}</dd>`}
    ${delivery.status === 'pending' && html`<dt>Next attempt</dt><dd>${time(delivery.nextAttemptAt)}</dd>`}
    <dt>Delivery id</dt><dd><code>${delivery.id}</code></dd>
  </dl>
</section>
<section class="card" aria-labelledby="attempts-heading">
  <h2 id="attempts-heading">Attempts</h2>
  ${attempts.length === 0
    ? empty(delivery.attempts === 0 ? 'Not attempted yet.' : 'The attempts of this delivery were made before they were recorded one by one: see its last answer above.')
    : html`<div class="table-wrap"><table>
    <thead><tr><th>#</th><th>At</th><th>Answer</th><th>Then</th></tr></thead>
    <tbody>${attempts.map(attempt => html`<tr>
      <td>${attempt.number}</td>
      <td class="nowrap">${time(attempt.at)}</td>
      <td>${attempt.responseStatus !== null ? html`<span class="nowrap">HTTP ${attempt.responseStatus}</span>` : attempt.error ?? '—'}</td>
      <td>${OUTCOMES[attempt.outcome] ?? attempt.outcome}</td>
    </tr>`)}</tbody>
  </table></div>
  ${unrecorded > 0 && html`<p class="hint">${unrecorded} earlier attempt${unrecorded === 1 ? ' was' : 's were'} made before attempts were recorded one by one.</p>`}`}
</section>
<section class="card" aria-labelledby="body-heading">
  <h2 id="body-heading">Body sent</h2>
  <p class="hint">The bytes sent as stored: the same on every attempt and replay. The webhook-timestamp and webhook-signature headers are made at each attempt with the endpoint's secret, which is not shown.</p>
  <pre class="body-sent"><code>${delivery.body}</code></pre>
</section>`
}
