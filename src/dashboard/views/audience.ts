import type { Suppression } from '../../store/suppressions.js'
import { html, type SafeHtml } from '../html.js'
import { csrfField, empty, phone, time } from '../parts.js'
import { gauge, stackedBars, type DayBar } from './charts.js'

const REASONS: Record<string, string> = {
  opt_out_131050: 'WhatsApp reported an opt-out (131050)',
  user_preferences: 'Stopped marketing messages in WhatsApp',
  keyword: 'Wrote an opt-out keyword',
  manual: 'Added by hand'
}

export interface SuppressionsView { rows: Suppression[], csrfToken: string, error?: string }

export function suppressionsContent (view: SuppressionsView): SafeHtml {
  return html`
<p class="page-intro">Recipients who get no MARKETING template from this workspace. Utility and authentication templates and replies in their service window still go.</p>
<section class="card" aria-labelledby="add-suppression">
  <h2 id="add-suppression">Add a recipient</h2>
  <form method="post" action="/dashboard/suppressions" class="inline-form">
    ${csrfField(view.csrfToken)}
    <label for="suppression-to">Phone number</label>
    <input id="suppression-to" name="to" required inputmode="tel" placeholder="+15551234567"${view.error ? html` aria-invalid="true" aria-describedby="suppression-error"` : ''}>
    <button type="submit">Add</button>
    ${view.error && html`<p class="field-error" id="suppression-error">${view.error}</p>`}
  </form>
</section>
<section class="card" aria-labelledby="suppressions-heading">
  <h2 id="suppressions-heading">Suppressed recipients</h2>
  ${view.rows.length === 0 ? empty('Nobody has opted out.') : html`<div class="table-wrap"><table>
    <thead><tr><th>Recipient</th><th>Why</th><th>Since</th><th></th></tr></thead>
    <tbody>${view.rows.map(row => html`<tr data-suppression="${row.recipient}">
      <td>${phone(row.recipient)}</td>
      <td data-field="reason">${REASONS[row.reason] ?? row.reason}</td>
      <td class="nowrap">${time(row.createdAt)}</td>
      <td><form method="post" action="/dashboard/suppressions/remove">${csrfField(view.csrfToken)}<input type="hidden" name="to" value="${row.recipient}"><button type="submit" class="secondary small">Remove</button></form></td>
    </tr>`)}</tbody>
  </table></div>`}
</section>`
}

export interface UsageView {
  days: DayBar[]
  totals: { billable: number, free: number, unpriced: number, messages: number }
  numbers: Array<{ label: string, used: number, limit: number | null, tier: string }>
}

export function usageContent (view: UsageView): SafeHtml {
  return html`
<p class="page-intro">What this workspace sent in the last 30 days, as WhatsApp priced it, and how much of the messaging limit (unique recipients of business-initiated templates in a rolling 24 hours) is in use.</p>
<section class="card" aria-labelledby="limit-heading">
  <h2 id="limit-heading">Messaging limit</h2>
  ${view.numbers.length === 0 ? empty('No number connected.') : html`<div class="gauges">${view.numbers.map(number => html`<figure class="gauge" data-gauge="${number.label}">
    ${gauge(number.used, number.limit)}
    <figcaption>${number.label}: <strong data-field="used">${number.used}</strong> of <span data-field="limit">${number.limit === null ? 'unlimited' : String(number.limit)}</span> (${number.tier})</figcaption>
  </figure>`)}</div>`}
</section>
<section class="card" aria-labelledby="usage-heading">
  <h2 id="usage-heading">Messages per day, by pricing category</h2>
  <p>Total <strong data-field="messages">${view.totals.messages}</strong>: <span data-field="billable">${view.totals.billable}</span> billable, <span data-field="free">${view.totals.free}</span> free, <span data-field="unpriced">${view.totals.unpriced}</span> not priced yet.</p>
  ${view.days.length === 0 ? empty('Nothing sent in the last 30 days.') : stackedBars(view.days)}
</section>`
}
