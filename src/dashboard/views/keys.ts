import type { Plan } from '../../../db/schema.js'
import { SCOPES } from '../../access/scopes.js'
import type { ApiKey } from '../../store/api-keys.js'
import type { PhoneNumber } from '../../store/connections.js'
import { flag, html, identifier, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, secretOnce, time } from '../parts.js'
import { planNote } from './overview.js'

export interface KeysView {
  plan: Plan
  keys: ApiKey[]
  /** the workspace's connected numbers: a key may be limited to some of them */
  numbers: PhoneNumber[]
  csrfToken: string
  /** only in the answer to the creation: the one time the secret is shown */
  created?: { key: ApiKey, secret: string }
  /** the form as posted, when it is shown again with an error */
  form?: { name: string, scopes: string[], phoneNumberIds: string[], error: { field: 'name' | 'scopes' | 'numbers', text: string } }
}

export function keysContent (view: KeysView): SafeHtml {
  const { form } = view
  return html`
<p class="page-intro">Developer Studio · API keys authenticate the API with <code>Authorization: Bearer &lt;key&gt;</code>. Give each key only the scopes its service needs, and limit a sending key to its numbers. Keep keys on your servers: never in browsers, mobile apps or public repositories.</p>
${view.plan !== 'growth' && view.plan !== 'scale' && planNote(view.plan)}
${view.created && createdPanel(view.created)}
<section class="card" aria-labelledby="create-heading">
  <h2 id="create-heading">Create a key</h2>
  <form class="form" method="post" action="/dashboard/keys">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'name', label: 'Name', value: form?.name, required: true, maxlength: 100, autocomplete: 'off', placeholder: 'e.g. billing-service', error: form?.error.field === 'name' ? form.error.text : undefined })}
    <input type="hidden" name="scopes_shown" value="1">
    <fieldset${errorAttributes(form?.error.field === 'scopes')}><legend>Scopes</legend><div class="choices">
      ${SCOPES.map(scope => html`<label class="choice"><input type="checkbox" name="scopes" value="${scope}"${flag('checked', form ? form.scopes.includes(scope) : true)}> <code>${scope}</code></label>`)}
    </div>${form?.error.field === 'scopes' && html`<span class="field-error" id="scopes-error">${form.error.text}</span>`}</fieldset>
    <fieldset${errorAttributes(form?.error.field === 'numbers', 'numbers-error')}><legend>May send from</legend>
      ${view.numbers.length === 0
        ? html`<p class="hint">Any number of the workspace. Connect a number to limit a key to some of them.</p>`
        : html`<div class="choices">${view.numbers.map(number => html`<label class="choice"><input type="checkbox" name="phone_number_ids" value="${number.phoneNumberId}"${flag('checked', form?.phoneNumberIds.includes(number.phoneNumberId))}> ${identifier(number.displayPhoneNumber)} <code>${number.phoneNumberId}</code></label>`)}</div>
        <p class="hint">None checked: any number of the workspace.</p>`}
      ${form?.error.field === 'numbers' && html`<span class="field-error" id="numbers-error">${form.error.text}</span>`}
    </fieldset>
    <button type="submit">Create key</button>
  </form>
</section>
<section class="card" aria-labelledby="keys-heading">
  <h2 id="keys-heading">Keys</h2>
  ${view.keys.length === 0 ? empty('No keys yet.') : keyTable(view.keys, view.csrfToken)}
</section>`
}

function errorAttributes (on: boolean, id = 'scopes-error'): SafeHtml {
  return on ? html` aria-invalid="true" aria-describedby="${id}"` : html``
}

function createdPanel ({ key, secret }: { key: ApiKey, secret: string }): SafeHtml {
  return secretOnce({
    heading: `Key “${identifier(key.name)}” created`,
    warning: { kind: 'warning', title: 'Copy the secret now', text: 'It is shown this once. Outbound keeps only a hash of it, so it cannot be shown again; if it is lost, create a new key and revoke this one.' },
    label: 'Secret',
    secret
  })
}

function keyTable (keys: ApiKey[], csrfToken: string): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Sends from</th><th>Created</th><th>Last used</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${keys.map(key => html`<tr data-key-id="${key.id}">
    <td>${identifier(key.name)}</td>
    <td><code>${key.prefix}…</code></td>
    <td data-field="scopes">${key.scopes.length === SCOPES.length ? html`all` : key.scopes.map(scope => html`<code>${scope}</code> `)}</td>
    <td data-field="numbers">${key.phoneNumberIds === null ? html`any number` : key.phoneNumberIds.map(id => html`<code>${id}</code> `)}</td>
    <td class="nowrap">${time(key.createdAt)}</td>
    <td class="nowrap" data-field="last-used">${time(key.lastUsedAt)}</td>
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
    <p>Revoke “${identifier(key.name)}”? Requests with this key get 401 from the next one on. This cannot be undone.</p>
    <button type="submit" class="danger small">Revoke key</button>
  </form>
</details>`
}
