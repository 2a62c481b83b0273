import type { MessageRecord } from '../../store/messages.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { pricingText, type EventRow, type MessageRow } from '../message-rows.js'
import { notice, templateName, time } from '../parts.js'

export interface MessageView {
  record: MessageRecord
  row: MessageRow
  history: EventRow[]
  from: string
  /** the workspace's retention (CONTRACT.md 17), to say why a record's content is gone */
  retentionDays: number | null
}

export function messageContent ({ record, row, history, from, retentionDays }: MessageView): SafeHtml {
  return html`
<p><a href="/dashboard/messages">← All messages</a></p>
<div data-live-message="${row.href}/status">
${stateNotice(record, from)}
<section class="card" aria-labelledby="message-heading">
  <h2 id="message-heading">Message to ${row.to}</h2>
  <dl class="facts">
    <dt>Status</dt><dd><span class="badge" data-field="status" data-status="${row.status}">${row.status}</span></dd>
    ${record.status === 'queued' && record.heldReason ? html`<dt>Waiting</dt><dd data-field="detail">${row.detail}</dd>` : ''}
    <dt>wamid</dt><dd><code data-field="wamid">${row.wamid || '—'}</code></dd>
    <dt>From</dt><dd>${from}</dd>
    <dt>Type</dt><dd>${row.type}</dd>
    <dt>Sent by</dt><dd>${row.source}</dd>
    <dt>Client reference</dt><dd>${record.clientReference ? html`<code>${record.clientReference}</code>` : '—'}</dd>
    <dt>Idempotency key</dt><dd>${record.idempotencyKey ? html`<code>${record.idempotencyKey}</code>` : '—'}</dd>
    <dt>Attempts</dt><dd data-field="attempts">${record.attempts}</dd>
    <dt>Pricing category</dt><dd data-field="pricing">${pricingText(record)}</dd>
    <dt>Created</dt><dd>${row.created}</dd>
    <dt>Updated</dt><dd data-field="updated">${row.updated}</dd>
    <dt>Log id</dt><dd><code>${record.id}</code></dd>
  </dl>
</section>
<section class="card" aria-labelledby="history-heading">
  <h2 id="history-heading">Status history</h2>
  <p class="hint">Oldest first: our own steps and what WhatsApp reported, with the error where there was one.</p>
  <div class="table-wrap"><table>
    <thead><tr><th>At</th><th>Status</th></tr></thead>
    <tbody data-history>${history.map(eventRowMarkup)}</tbody>
  </table></div>
  <template id="event-row">${eventRowMarkup(undefined)}</template>
</section>
<section class="card" aria-labelledby="content-heading">
  <h2 id="content-heading">Content</h2>
  ${record.contentPurgedAt ? purgedNotice(record.contentPurgedAt, record.erased, retentionDays) : contentSummary(record)}
  <details><summary>Upstream payload</summary><pre>${identifier(JSON.stringify(record.payload, null, 2))}</pre></details>
</section>
</div>`
}

/** A message still waiting says since when and where; the live script hides this once the status moves on. */
function stateNotice (record: MessageRecord, from: string): SafeHtml {
  if (record.status === 'queued') {
    return html`<div data-while-status="queued">${notice({ kind: 'info', title: 'Queued', text: html`Queued at ${time(record.createdAt)}: waiting its turn in the queue of ${from}, which is sent at the number's pace.` })}</div>`
  }
  if (record.status === 'sending' || record.status === 'pending') {
    return html`<div data-while-status="${record.status}">${notice({ kind: 'info', title: 'Being sent', text: html`Handed to WhatsApp now; created at ${time(record.createdAt)}.` })}</div>`
  }
  return html``
}

/** What is left of a purged record is its metadata: the notice says when and why the content went. */
function purgedNotice (at: Date, erased: boolean, retentionDays: number | null): SafeHtml {
  const why = erased
    ? 'The person was erased: their number, wamid and content are gone'
    : retentionDays !== null ? `Content removed after ${String(retentionDays)} days` : 'Content removed by a purge'
  return html`<p class="muted" data-content-purged>${why} (${time(at)}). The status history and pricing stay.</p>`
}

export function eventRowMarkup (event: EventRow | undefined): SafeHtml {
  return html`<tr>
  <td class="nowrap" data-field="at">${event?.at}</td>
  <td><span class="badge" data-field="status" data-status="${event?.status ?? ''}">${event?.status}</span><span class="history-error" data-field="error">${event?.error}</span></td>
</tr>`
}

function contentSummary (record: MessageRecord): SafeHtml {
  const payload = record.payload as Record<string, Record<string, unknown> | undefined>
  const content = payload[record.type] ?? {}
  switch (record.type) {
    case 'text': return html`<p class="message-text">${String(content.body ?? '')}</p>`
    case 'template': {
      const language = (content.language as { code?: string } | undefined)?.code
      return html`<p class="scroll-x">Template ${templateName(String(content.name ?? ''))}${language && html` in <code>${language}</code>`}</p>`
    }
    case 'interactive': return html`<p>Interactive (${String(content.type ?? '')})</p>`
    default: return html`<p>${record.type}: ${content.link ? html`<code>${String(content.link)}</code>` : html`media id <code>${String(content.id ?? '')}</code>`}${content.caption ? html` · “${String(content.caption)}”` : ''}</p>`
  }
}
