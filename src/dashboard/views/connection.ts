import type { ActiveConnection } from '../../store/connections.js'
import { html, type SafeHtml } from '../html.js'
import { csrfField, field, notice, time, type Notice } from '../parts.js'
import { numbersTable } from './numbers.js'

export interface ConnectionView {
  active: ActiveConnection | undefined
  csrfToken: string
  wabaId?: string
  error?: Notice
  fieldError?: { waba_id?: string, access_token?: string }
}

export function connectionContent (view: ConnectionView): SafeHtml {
  return html`
${view.active ? current(view.active, view.csrfToken) : html`<p class="page-intro">Connect a WhatsApp Business Account to send from its numbers. The token is checked by listing the account's numbers, stored encrypted, and the webhook is registered for you.</p>`}
<section class="card" aria-labelledby="connect-heading">
  <h2 id="connect-heading">${view.active ? 'Replace the connection' : 'Connect a number'}</h2>
  ${view.error && notice(view.error)}
  <form class="form" method="post" action="/dashboard/connection">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'waba_id', label: 'WhatsApp Business Account ID', value: view.wabaId, required: true, inputmode: 'numeric', maxlength: 64, autocomplete: 'off', error: view.fieldError?.waba_id, hint: 'In Meta Business Suite: WhatsApp Manager → Account tools → the account\'s ID (digits).' })}
    ${field({ name: 'access_token', label: 'Access token', type: 'password', required: true, maxlength: 4096, autocomplete: 'off', error: view.fieldError?.access_token, hint: 'A system user token with whatsapp_business_messaging and whatsapp_business_management.' })}
    <div class="actions"><button type="submit">${view.active ? 'Replace connection' : 'Connect'}</button></div>
  </form>
</section>`
}

function current ({ connection, numbers }: ActiveConnection, csrfToken: string): SafeHtml {
  return html`<section class="card" aria-labelledby="current-heading">
  <div class="card-header"><h2 id="current-heading">Connected account</h2></div>
  <dl class="facts">
    <dt>WABA ID</dt><dd><code>${connection.wabaId}</code></dd>
    <dt>Connected</dt><dd>${time(connection.createdAt)}</dd>
    <dt>Webhook</dt><dd>${connection.webhookRegistered ? 'registered' : html`<span class="field-error">not registered yet; retried every 30 s${connection.webhookError && html` (${connection.webhookError})`}</span>`}</dd>
  </dl>
  <div class="section">${numbersTable(numbers)}</div>
  <details class="confirm">
    <summary class="button danger small">Disconnect…</summary>
    <form class="confirm-box" method="post" action="/dashboard/disconnect">
      ${csrfField(csrfToken)}
      <p>Sending stops at once: the API and this dashboard answer 409 until a number is connected again. Messages already logged stay.</p>
      <button type="submit" class="danger">Disconnect this account</button>
    </form>
  </details>
</section>`
}
