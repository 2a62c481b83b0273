import type { Plan } from '../../../db/schema.js'
import type { ApiKey } from '../../store/api-keys.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, secretOnce, time } from '../parts.js'
import { planNote } from './overview.js'

export interface KeysView {
  plan: Plan
  keys: ApiKey[]
  csrfToken: string
  /** only in the answer to the creation: the one time the secret is shown */
  created?: { key: ApiKey, secret: string }
  nameError?: string
  name?: string
}

export function keysContent (view: KeysView): SafeHtml {
  return html`
<p class="page-intro">Developer Studio · API keys authenticate <code>POST /api/messages.php</code> with <code>Authorization: Bearer &lt;key&gt;</code>. Keep keys on your servers: never in browsers, mobile apps or public repositories.</p>
${view.plan !== 'growth' && view.plan !== 'scale' && planNote(view.plan)}
${view.created && createdPanel(view.created)}
<section class="card" aria-labelledby="create-heading">
  <h2 id="create-heading">Create a key</h2>
  <form class="inline-form" method="post" action="/dashboard/keys">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'name', label: 'Name', value: view.name, required: true, maxlength: 100, autocomplete: 'off', placeholder: 'e.g. billing-service', error: view.nameError })}
    <button type="submit">Create key</button>
  </form>
</section>
<section class="card" aria-labelledby="keys-heading">
  <h2 id="keys-heading">Keys</h2>
  ${view.keys.length === 0 ? empty('No keys yet.') : keyTable(view.keys, view.csrfToken)}
</section>`
}

function createdPanel ({ key, secret }: { key: ApiKey, secret: string }): SafeHtml {
  return secretOnce({
    heading: `Key “${key.name}” created`,
    warning: { kind: 'warning', title: 'Copy the secret now', text: 'It is shown this once. Outbound keeps only a hash of it, so it cannot be shown again; if it is lost, create a new key and revoke this one.' },
    label: 'Secret',
    secret
  })
}

function keyTable (keys: ApiKey[], csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${keys.map(key => html`<tr data-key-id="${key.id}">
    <td>${key.name}</td>
    <td><code>${key.prefix}…</code></td>
    <td class="nowrap">${time(key.createdAt)}</td>
    <td class="nowrap">${time(key.lastUsedAt)}</td>
    <td>${key.revokedAt ? html`${badge('revoked')}<br><span class="hint">${time(key.revokedAt)}</span>` : badge('active')}</td>
    <td>${!key.revokedAt && revokeControl(key, csrfToken)}</td>
  </tr>`)}</tbody>
</table></div>`
}

function revokeControl (key: ApiKey, csrfToken: string): SafeHtml {
  return html`<details class="confirm">
  <summary class="button secondary small">Revoke…</summary>
  <form class="confirm-box" method="post" action="/dashboard/keys/${encodeURIComponent(key.id)}/revoke">
    ${csrfField(csrfToken)}
    <p>Revoke “${key.name}”? Requests with this key get 401 from the next one on. This cannot be undone.</p>
    <button type="submit" class="danger small">Revoke key</button>
  </form>
</details>`
}
