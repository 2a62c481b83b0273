import { RELAY_FIELDS } from '../../relay/fields.js'
import type { RelayDelivery, RelayTarget } from '../../store/relays.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, secretOnce, time } from '../parts.js'
import { lastAnswer } from './webhooks.js'

export interface RelaysView {
  relays: RelayTarget[]
  deliveries: RelayDelivery[]
  csrfToken: string
  /** only in the answer to the creation: the one time an own secret is shown */
  created?: { relay: RelayTarget, secret?: string }
  form?: { url: string, fields: string, numbers: string, signing: string, error: { field: string, text: string } }
}

export function relaysContent (view: RelaysView): SafeHtml {
  const error = (name: string) => view.form?.error.field === name ? view.form.error.text : undefined
  return html`
<p class="page-intro">Developer Studio · Meta sends your app's webhook to one URL, Outbound's. A relay passes what Meta sent for this workspace on to another tool (Chatwoot, n8n, Typebot, your own service) as Meta sent it: the same bytes, signed with <code>X-Hub-Signature-256</code>.</p>
${view.created && createdPanel(view.created)}
<section class="card" aria-labelledby="add-heading">
  <h2 id="add-heading">Add a relay</h2>
  <form class="form" method="post" action="/dashboard/relays">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'url', label: 'URL', type: 'url', value: view.form?.url, required: true, maxlength: 2048, placeholder: 'https://chatwoot.example.com/webhooks/whatsapp/+15550001111', error: error('url'), hint: 'https only; internal and private addresses are refused.' })}
    ${field({ name: 'fields', label: 'Fields', value: view.form?.fields, maxlength: 2000, placeholder: 'every field', error: error('fields'), hint: `Meta's change fields, comma-separated (${RELAY_FIELDS.slice(0, 3).join(', ')}, …); empty: every field.` })}
    ${field({ name: 'phone_number_ids', label: 'Phone number ids', value: view.form?.numbers, maxlength: 2000, placeholder: 'all numbers', error: error('phone_number_ids'), hint: 'Only these numbers\' messages, comma-separated; empty: all the workspace\'s.' })}
    <fieldset><legend>Signature</legend><div class="choices">
      <label class="choice"><input type="radio" name="signing" value="app"${view.form?.signing === 'own' ? '' : html` checked`}> the Meta app secret (what Chatwoot and n8n check)</label>
      <label class="choice"><input type="radio" name="signing" value="own"${view.form?.signing === 'own' ? html` checked` : ''}> a secret of this relay's own</label>
    </div></fieldset>
    <button type="submit">Add relay</button>
  </form>
</section>
<section class="card" aria-labelledby="relays-heading">
  <h2 id="relays-heading">Relays</h2>
  ${view.relays.length === 0 ? empty('No relays yet.') : relayTable(view.relays, view.csrfToken)}
</section>
<section class="card" aria-labelledby="deliveries-heading">
  <h2 id="deliveries-heading">Recent relay deliveries</h2>
  ${view.deliveries.length === 0 ? empty('No relay deliveries yet.') : deliveryTable(view.deliveries, view.csrfToken)}
</section>`
}

function createdPanel ({ relay, secret }: { relay: RelayTarget, secret?: string }): SafeHtml {
  if (!secret) return html`<section class="card"><h2>Relay added</h2><p>Deliveries to <code>${relay.url}</code> are signed with the Meta app secret.</p></section>`
  return secretOnce({
    heading: 'Relay added',
    warning: { kind: 'warning', title: 'Copy the signing secret now', text: html`It is shown this once. Deliveries to <code>${relay.url}</code> carry <code>X-Hub-Signature-256</code> keyed with it; if it is lost, remove the relay and add it again.` },
    label: 'Signing secret',
    secret
  })
}

function relayTable (relays: RelayTarget[], csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>URL</th><th>Fields</th><th>Numbers</th><th>Signature</th><th>Added</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${relays.map(relay => html`<tr data-relay-id="${relay.id}">
    <td class="url"><code>${relay.url}</code><br><span class="hint">${relay.id}</span></td>
    <td>${relay.fields === null ? 'all' : relay.fields.join(', ')}</td>
    <td>${relay.phoneNumberIds === null ? 'all' : relay.phoneNumberIds.join(', ')}</td>
    <td>${relay.signing === 'app' ? 'app secret' : 'own secret'}</td>
    <td class="nowrap">${time(relay.createdAt)}</td>
    <td class="nowrap"><details class="confirm">
      <summary class="button secondary small">Remove…</summary>
      <form class="confirm-box" method="post" action="/dashboard/relays/${encodeURIComponent(relay.id)}/remove">
        ${csrfField(csrfToken)}
        <p>Remove this relay? Nothing more is sent to it, pending deliveries included.</p>
        <button type="submit" class="danger small">Remove relay</button>
      </form>
    </details></td>
  </tr>`)}</tbody>
</table></div>`
}

function deliveryTable (deliveries: RelayDelivery[], csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Created</th><th>Delivery id</th><th>Relay</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${deliveries.map(delivery => html`<tr data-delivery-id="${delivery.id}">
    <td class="nowrap">${time(delivery.createdAt)}</td>
    <td class="wamid"><code>${delivery.id}</code></td>
    <td><span class="hint">${delivery.relayId}</span></td>
    <td>${badge(delivery.status === 'pending' ? 'PENDING' : delivery.status, delivery.status)}</td>
    <td>${delivery.attempts}</td>
    <td>${lastAnswer(delivery)}</td>
    <td class="nowrap">${delivery.status === 'pending' ? time(delivery.nextAttemptAt) : '—'}</td>
    <td class="nowrap">${delivery.status !== 'pending' && html`<form method="post" action="/dashboard/relays/deliveries/${encodeURIComponent(delivery.id)}/replay">${csrfField(csrfToken)}<button type="submit" class="secondary small">Replay</button></form>`}</td>
  </tr>`)}</tbody>
</table></div>`
}
