import { MESSAGE_STATUSES } from '../../resources/message-status.js'
import { flag, html, type SafeHtml } from '../html.js'
import type { MessageRow } from '../message-rows.js'
import { empty } from '../parts.js'

export interface MessagesView {
  rows: MessageRow[]
  status: string
  search: string
  /** the next page's cursor, when there may be older messages */
  olderThan?: string
  /** on the first page the list follows new messages and status changes as they happen */
  live: boolean
}

export function messagesContent (view: MessagesView): SafeHtml {
  const query = new URLSearchParams({ ...(view.status && { status: view.status }), ...(view.search && { q: view.search }) })
  return html`
<section class="card" aria-label="Filter">
  <form class="inline-form" method="get" action="/dashboard/messages" role="search">
    <div class="field narrow">
      <label for="filter-status">Status</label>
      <select id="filter-status" name="status">
        <option value="">All</option>
        ${MESSAGE_STATUSES.map(status => html`<option value="${status}"${flag('selected', view.status === status)}>${status}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="filter-q">Recipient or wamid</label>
      <input id="filter-q" name="q" type="search" value="${view.search}" maxlength="200" placeholder="+1555…, US.… or wamid.…">
    </div>
    <div class="actions"><button type="submit">Filter</button>${(view.status || view.search) && html`<a class="button secondary" href="/dashboard/messages">Clear</a>`}</div>
  </form>
</section>
<section class="card" aria-labelledby="log-heading">
  <div class="card-header">
    <h2 id="log-heading">Newest first</h2>
    ${view.live && html`<span class="hint" data-live-status>Updates live</span>`}
  </div>
  <div class="table-wrap">
  <table${view.live ? html` data-live="/dashboard/messages.json?${query.toString()}"` : ''}>
    <thead><tr><th>Created</th><th>To</th><th>Type</th><th>Status</th><th>Detail</th><th>Sent by</th><th><span class="sr-only">Details</span></th></tr></thead>
    <tbody>${view.rows.map(messageRowMarkup)}</tbody>
  </table>
  </div>
  ${view.rows.length === 0 && empty(view.status || view.search ? 'No message matches.' : 'No messages yet. Send one from “Send a message” or through the API.')}
  ${view.olderThan && html`<p class="actions"><a class="button secondary" href="/dashboard/messages?${withCursor(query, view.olderThan)}">Older messages →</a></p>`}
  <template id="message-row">${messageRowMarkup(undefined)}</template>
</section>`
}

/** The markup of one row; without a message, the empty copy the live script fills in. */
export function messageRowMarkup (row: MessageRow | undefined): SafeHtml {
  return html`<tr data-id="${row?.id ?? ''}">
  <td class="nowrap" data-field="created">${row?.created}</td>
  <td class="nowrap" data-field="to">${row?.to}</td>
  <td data-field="type">${row?.type}</td>
  <td><span class="badge" data-field="status" data-status="${row?.status ?? ''}">${row?.status}</span></td>
  <td data-field="detail">${row?.detail}</td>
  <td data-field="source">${row?.source}</td>
  <td class="nowrap"><a data-field="href" href="${row?.href ?? '#'}">Details</a></td>
</tr>`
}

function withCursor (query: URLSearchParams, before: string): string {
  const next = new URLSearchParams(query)
  next.set('before', before)
  return next.toString()
}
