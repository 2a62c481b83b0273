import type { MessageRecord } from '../../store/messages.js'
import { html, type SafeHtml } from '../html.js'
import type { EventRow, MessageRow } from '../message-rows.js'

export interface MessageView { record: MessageRecord, row: MessageRow, events: EventRow[], from: string }

export function messageContent ({ record, row, events, from }: MessageView): SafeHtml {
  return html`
<p><a href="/dashboard/messages">← All messages</a></p>
<div data-live-message="${row.href}/status">
<section class="card" aria-labelledby="message-heading">
  <h2 id="message-heading">Message to ${row.to}</h2>
  <dl class="facts">
    <dt>Status</dt><dd><span class="badge" data-field="status" data-status="${row.status}">${row.status}</span></dd>
    <dt>Detail</dt><dd data-field="detail">${row.detail || '—'}</dd>
    <dt>wamid</dt><dd><code data-field="wamid">${row.wamid || '—'}</code></dd>
    <dt>From</dt><dd>${from}</dd>
    <dt>Type</dt><dd>${row.type}</dd>
    <dt>Sent by</dt><dd>${row.source}</dd>
    <dt>Client reference</dt><dd>${record.clientReference ? html`<code>${record.clientReference}</code>` : '—'}</dd>
    <dt>Idempotency key</dt><dd>${record.idempotencyKey ? html`<code>${record.idempotencyKey}</code>` : '—'}</dd>
    <dt>Attempts</dt><dd data-field="attempts">${record.attempts}</dd>
    <dt>Pricing</dt><dd data-field="pricing">${record.pricingCategory ?? 'not reported yet'}</dd>
    <dt>Created</dt><dd>${row.created}</dd>
    <dt>Updated</dt><dd data-field="updated">${row.updated}</dd>
    <dt>Log id</dt><dd><code>${record.id}</code></dd>
  </dl>
</section>
<section class="card" aria-labelledby="content-heading">
  <h2 id="content-heading">Content</h2>
  ${contentSummary(record)}
  <details><summary>Upstream payload</summary><pre>${JSON.stringify(record.payload, null, 2)}</pre></details>
</section>
<section class="card" aria-labelledby="history-heading">
  <h2 id="history-heading">Status history</h2>
  <p class="hint">As WhatsApp reported it, with its error and pricing category when it gave them.</p>
  <div class="table-wrap"><table>
    <thead><tr><th>Status</th><th>At (upstream)</th><th>Error</th><th>Pricing</th><th>Received</th></tr></thead>
    <tbody data-history>${events.map(eventRowMarkup)}</tbody>
  </table></div>
  <p class="empty" data-history-empty${events.length > 0 ? html` hidden` : ''}>No status reported yet.</p>
  <template id="event-row">${eventRowMarkup(undefined)}</template>
</section>
</div>`
}

export function eventRowMarkup (event: EventRow | undefined): SafeHtml {
  return html`<tr>
  <td><span class="badge" data-field="status" data-status="${event?.status ?? ''}">${event?.status}</span></td>
  <td class="nowrap" data-field="at">${event?.at}</td>
  <td data-field="error">${event?.error}</td>
  <td data-field="pricing">${event?.pricing}</td>
  <td class="nowrap" data-field="received">${event?.received}</td>
</tr>`
}

function contentSummary (record: MessageRecord): SafeHtml {
  const payload = record.payload as Record<string, Record<string, unknown> | undefined>
  const content = payload[record.type] ?? {}
  switch (record.type) {
    case 'text': return html`<p class="message-text">${String(content.body ?? '')}</p>`
    case 'template': {
      const language = (content.language as { code?: string } | undefined)?.code
      return html`<p>Template <code>${String(content.name ?? '')}</code>${language && html` in <code>${language}</code>`}</p>`
    }
    case 'interactive': return html`<p>Interactive (${String(content.type ?? '')})</p>`
    default: return html`<p>${record.type}: ${content.link ? html`<code>${String(content.link)}</code>` : html`media id <code>${String(content.id ?? '')}</code>`}${content.caption ? html` · “${String(content.caption)}”` : ''}</p>`
  }
}
