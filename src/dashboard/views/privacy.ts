import { COUNTS } from '../../privacy/content-map.js'
import type { ErasureRecord } from '../../store/erasures.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, time } from '../parts.js'

export interface PrivacyView {
  retentionDays: number | null
  erasures: ErasureRecord[]
  csrfToken: string
  /** a refused form: what was typed, and why */
  form?: { name: 'days' | 'person', value: string, error: string }
}

const COUNT_LABELS: Record<(typeof COUNTS)[number], string> = {
  messages: 'records',
  inbound: 'inbound',
  media_files: 'files',
  campaign_recipients: 'campaign rows',
  webhook_deliveries: 'stored webhooks',
  event_deliveries: 'event bodies'
}

/** Settings → Privacy (CONTRACT.md 17): how long content is kept, and one person erased. */
export function privacyContent (view: PrivacyView): SafeHtml {
  const error = (name: 'days' | 'person') => view.form?.name === name ? view.form.error : undefined
  const days = view.form?.name === 'days' ? view.form.value : view.retentionDays === null ? '' : String(view.retentionDays)
  return html`
<p class="page-intro">Settings · What customers wrote and were sent is content: texts, template values, captions, files, inbound messages, campaign rows, raw webhooks and event bodies. Ids, statuses, times, prices and counts are metadata and stay.</p>
<section class="card" aria-labelledby="retention-heading" data-retention>
  <h2 id="retention-heading">Retention</h2>
  <p data-retention-now>${view.retentionDays === null ? 'Content is kept until you remove it.' : html`Content is removed after ${String(view.retentionDays)} days.`} Applied webhooks keep their raw bytes at most 7 days whatever this says.</p>
  <form class="form" method="post" action="/dashboard/privacy/retention">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'days', label: 'Keep content for (days)', value: days, inputmode: 'numeric', maxlength: 4, placeholder: 'for ever', error: error('days'), hint: '1 to 3650; empty keeps it for ever. Older content is removed by the retention sweep (hourly by default), in small batches.' })}
    <button type="submit">Save retention</button>
  </form>
</section>
<section class="card" aria-labelledby="erase-heading" data-erase-person>
  <h2 id="erase-heading">Erase a person</h2>
  <p>Everything the workspace holds about one person goes: their records' content, number and wamids, inbound messages, files, campaign rows, stored webhooks and event bodies. An opt-out stays, kept as a keyed hash of the number, so they are never messaged against their will. This cannot be undone.</p>
  <form class="form" method="post" action="/dashboard/privacy/erasures">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'person', label: 'Phone number or user id', value: view.form?.name === 'person' ? view.form.value : undefined, required: true, maxlength: 160, autocomplete: 'off', placeholder: '+15550001111 or US.13491208655302741918', error: error('person') })}
    <label class="choice"><input type="checkbox" name="confirm" value="yes" required> I understand that this person's data is erased for good</label>
    <button type="submit" class="danger">Erase this person</button>
  </form>
</section>
<section class="card" aria-labelledby="erasures-heading">
  <h2 id="erasures-heading">Erasures</h2>
  <p class="hint">An erasure names nobody: the number is kept encrypted until it completes, then dropped.</p>
  ${view.erasures.length === 0 ? empty('No erasures yet.') : erasureTable(view.erasures)}
</section>`
}

function erasureTable (erasures: ErasureRecord[]): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Requested</th><th>Erasure</th><th>Status</th><th>Completed</th><th>Removed</th></tr></thead>
  <tbody>${erasures.map(erasure => html`<tr data-erasure-id="${erasure.id}">
    <td class="nowrap">${time(erasure.requestedAt)}</td>
    <td><code>${erasure.id}</code></td>
    <td>${badge(erasure.status)}</td>
    <td class="nowrap">${erasure.completedAt ? time(erasure.completedAt) : html`<span class="muted">—</span>`}</td>
    <td>${erasure.counts ? COUNTS.map(count => `${String(erasure.counts?.[count] ?? 0)} ${COUNT_LABELS[count]}`).join(', ') : html`<span class="muted">—</span>`}</td>
  </tr>`)}</tbody>
</table></div>`
}
