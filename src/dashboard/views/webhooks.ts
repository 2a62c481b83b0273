import { EVENT_TYPES } from '../../events/outbox.js'
import type { WebhookDelivery, WebhookEndpoint } from '../../store/webhooks.js'
import { flag, html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, secretOnce, time } from '../parts.js'

export interface WebhooksView {
  endpoints: WebhookEndpoint[]
  deliveries: WebhookDelivery[]
  /** the endpoints the deliveries went to, removed ones included */
  deliveryEndpoints: ReadonlyMap<string, WebhookEndpoint>
  csrfToken: string
  /** only in the answer to the creation: the one time the secret is shown */
  created?: { endpoint: WebhookEndpoint, secret: string }
  url?: string
  urlError?: string
}

export function webhooksContent (view: WebhooksView): SafeHtml {
  return html`
<p class="page-intro">Developer Studio · Outbound POSTs events (message statuses, inbound messages, template updates) to your HTTPS endpoints, signed as Standard Webhooks: verify each one with the endpoint's secret before trusting it.</p>
${view.created && createdPanel(view.created)}
<section class="card" aria-labelledby="add-heading">
  <h2 id="add-heading">Add an endpoint</h2>
  <form class="form" method="post" action="/dashboard/webhooks">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'url', label: 'URL', type: 'url', value: view.url, required: true, maxlength: 2048, placeholder: 'https://example.com/outbound-events', error: view.urlError, hint: 'https only; internal and private addresses are refused.' })}
    <fieldset><legend>Events</legend><div class="choices">
      ${EVENT_TYPES.map(type => html`<label class="choice"><input type="checkbox" name="events" value="${type}"${flag('checked', true)}> ${type}</label>`)}
    </div></fieldset>
    <button type="submit">Add endpoint</button>
  </form>
</section>
<section class="card" aria-labelledby="endpoints-heading">
  <h2 id="endpoints-heading">Endpoints</h2>
  ${view.endpoints.length === 0 ? empty('No endpoints yet.') : endpointTable(view.endpoints, view.csrfToken)}
</section>
<section class="card" aria-labelledby="deliveries-heading">
  <h2 id="deliveries-heading">Recent deliveries</h2>
  ${view.deliveries.length === 0 ? empty('No deliveries yet.') : deliveryTable(view.deliveries, view.deliveryEndpoints, view.csrfToken)}
</section>
<section class="card" aria-labelledby="verify-heading">
  <h2 id="verify-heading">Verifying a delivery</h2>
  <pre><code>import { Webhook } from 'standardwebhooks'
// raw body as received, headers webhook-id, webhook-timestamp, webhook-signature
const event = new Webhook(process.env.OUTBOUND_WEBHOOK_SECRET).verify(rawBody, headers) // throws if forged or stale</code></pre>
</section>`
}

function createdPanel ({ endpoint, secret }: { endpoint: WebhookEndpoint, secret: string }): SafeHtml {
  return secretOnce({
    heading: 'Endpoint added',
    warning: { kind: 'warning', title: 'Copy the signing secret now', text: html`It is shown this once. Deliveries to <code>${endpoint.url}</code> are signed with it; if it is lost, remove the endpoint and add it again.` },
    label: 'Signing secret',
    secret
  })
}

function endpointTable (endpoints: WebhookEndpoint[], csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>URL</th><th>Events</th><th>Added</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${endpoints.map(endpoint => html`<tr data-endpoint-id="${endpoint.id}">
    <td class="url"><code>${endpoint.url}</code><br><span class="hint">${endpoint.id}</span></td>
    <td>${endpoint.events.length === EVENT_TYPES.length ? 'all' : endpoint.events.join(', ')}</td>
    <td class="nowrap">${time(endpoint.createdAt)}</td>
    <td class="nowrap">
      <form method="post" action="/dashboard/webhooks/${encodeURIComponent(endpoint.id)}/test">${csrfField(csrfToken)}<button type="submit" class="secondary small">Send test event</button></form>
      <details class="confirm">
        <summary class="button secondary small">Remove…</summary>
        <form class="confirm-box" method="post" action="/dashboard/webhooks/${encodeURIComponent(endpoint.id)}/remove">
          ${csrfField(csrfToken)}
          <p>Remove this endpoint? Nothing more is sent to it, pending deliveries included.</p>
          <button type="submit" class="danger small">Remove endpoint</button>
        </form>
      </details>
    </td>
  </tr>`)}</tbody>
</table></div>`
}

function deliveryTable (deliveries: WebhookDelivery[], endpoints: ReadonlyMap<string, WebhookEndpoint>, csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Created</th><th>Event and webhook-id</th><th>Endpoint</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${deliveries.map(delivery => html`<tr data-delivery-id="${delivery.id}">
    <td class="nowrap">${time(delivery.createdAt)}</td>
    <td class="wamid">${delivery.type}<br><code class="hint">${delivery.webhookId}</code></td>
    <td class="url">${endpointCell(endpoints.get(delivery.endpointId), delivery.endpointId)}</td>
    <td>${badge(delivery.status === 'pending' ? 'PENDING' : delivery.status, delivery.status)}</td>
    <td>${delivery.attempts}</td>
    <td>${lastAnswer(delivery)}</td>
    <td class="nowrap">${delivery.status === 'pending' ? time(delivery.nextAttemptAt) : '—'}</td>
    <td class="nowrap"><div class="actions">
      <a href="${deliveryHref(delivery.id)}">Details</a>
      ${delivery.status !== 'pending' && html`<form method="post" action="/dashboard/webhooks/deliveries/${encodeURIComponent(delivery.id)}/replay">${csrfField(csrfToken)}<button type="submit" class="secondary small">Replay</button></form>`}
    </div></td>
  </tr>`)}</tbody>
</table></div>`
}

export function deliveryHref (id: string): string {
  return `/dashboard/webhooks/deliveries/${encodeURIComponent(id)}`
}

/** The endpoint's URL, marked when it has been removed since. */
export function endpointCell (endpoint: WebhookEndpoint | undefined, id: string): SafeHtml {
  if (!endpoint) return html`<span class="hint">${id}</span>`
  return html`<code>${endpoint.url}</code>${endpoint.removedAt && html` ${badge('revoked', 'removed')}`}`
}

export function lastAnswer (delivery: Pick<WebhookDelivery, 'lastResponseStatus' | 'lastError'>): string {
  return delivery.lastResponseStatus !== null ? `HTTP ${delivery.lastResponseStatus}` : delivery.lastError ?? '—'
}
