import { inboundText, outboundText } from '../../conversations/text.js'
import type { ReplyTo } from '../../resources/inbound.js'
import { SERVICE_WINDOW_MS } from '../../resources/inbound.js'
import type { Conversation, ThreadItem } from '../../store/conversations.js'
import type { Template } from '../../store/templates.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, recipientLabel, time } from '../parts.js'

export const conversationHref = (phoneNumberId: string, person: string) => `/dashboard/conversations/${encodeURIComponent(phoneNumberId)}/${encodeURIComponent(person)}`

/** The list: one row per (person, number), most recently active first. */
export function conversationsContent (view: { conversations: Conversation[], numbers: ReadonlyMap<string, string>, now: Date, readReceipts: string, csrfToken: string }): SafeHtml {
  const choices = [['manual', 'Only when you mark them'], ['on_receipt', 'As soon as they arrive'], ['on_reply', 'When you reply']] as const
  return html`
<p class="page-intro">Everyone who wrote to your numbers or was sent a message, most recently active first. Open one to read the thread and reply.</p>
<section class="card">
  <form class="form" method="post" action="/dashboard/conversations/settings" data-read-receipts>
    ${csrfField(view.csrfToken)}
    <div class="field">
      <label for="field-read_receipts">Mark messages read</label>
      <select id="field-read_receipts" name="read_receipts">${choices.map(([value, label]) => html`<option value="${value}"${view.readReceipts === value ? html` selected` : ''}>${label}</option>`)}</select>
    </div>
    <div class="actions"><button type="submit" class="secondary">Save</button></div>
  </form>
</section>
<section class="card">
  ${view.conversations.length === 0 ? empty('No conversations yet.') : html`<div class="table-wrap"><table>
    <thead><tr><th>Person</th><th>Number</th><th>Last activity</th><th>Unread</th><th>Service window</th></tr></thead>
    <tbody>${view.conversations.map(conversation => html`<tr>
      <td class="nowrap"><a href="${conversationHref(conversation.phoneNumberId, conversation.person)}">${recipientLabel(conversation.person)}</a></td>
      <td class="nowrap">${identifier(view.numbers.get(conversation.phoneNumberId) ?? conversation.phoneNumberId)}</td>
      <td class="nowrap">${time(conversation.lastAt)}</td>
      <td>${conversation.unread > 0 ? badge('queued', `${conversation.unread} unread`) : html`<span class="muted">0</span>`}</td>
      <td class="nowrap">${windowLeft(conversation.lastInboundAt, view.now)}</td>
    </tr>`)}</tbody>
  </table></div>`}
</section>`
}

export interface ThreadView {
  conversation: Conversation
  number: string
  /** newest first, as the API pages them; shown oldest first */
  items: ThreadItem[]
  payloads: ReadonlyMap<string, { type: string, payload: unknown }>
  replies: ReadonlyMap<string, ReplyTo | null>
  templates: Template[]
  csrfToken: string
  now: Date
}

/** A thread: the service window's time left, actions on the person, the messages both ways, and a reply box. */
export function threadContent (view: ThreadView): SafeHtml {
  const { conversation } = view
  const href = conversationHref(conversation.phoneNumberId, conversation.person)
  const open = conversation.lastInboundAt !== null && conversation.lastInboundAt.getTime() + SERVICE_WINDOW_MS > view.now.getTime()
  return html`
<p class="page-intro"><a href="/dashboard/conversations">All conversations</a> · to ${identifier(view.number)}</p>
<section class="card conversation-head">
  <p><strong>${recipientLabel(conversation.person)}</strong> · ${windowLeft(conversation.lastInboundAt, view.now)}</p>
  <div class="conversation-actions" data-conversation-actions>
    <form method="post" action="${href}/read">${csrfField(view.csrfToken)}<button type="submit" class="secondary small"${conversation.unread === 0 ? html` disabled` : ''}>Mark read (${conversation.unread})</button></form>
    <details class="confirm">
      <summary class="button danger small">Erase this person…</summary>
      <form class="confirm-box" method="post" action="${href}/erase">
        ${csrfField(view.csrfToken)}
        <p>Erase everything held about ${recipientLabel(conversation.person)}: this conversation, their messages' content, files and rows. An opt-out stays. This cannot be undone.</p>
        <button type="submit" class="danger small">Erase for good</button>
      </form>
    </details>
  </div>
</section>
<section class="card">
  ${view.items.length === 0 ? empty('No messages yet.') : html`<ol class="thread">${[...view.items].reverse().map(item => bubble(item, view))}</ol>`}
</section>
<section class="card">
  <form class="form" method="post" action="${href}/reply" data-reply>
    ${csrfField(view.csrfToken)}
    ${open ? html`<div class="field">
      <label for="field-body">Reply</label>
      <textarea id="field-body" name="body" dir="auto" maxlength="4096" rows="3" required></textarea>
    </div>` : html`<div class="field">
      <label for="field-template">Template <span class="hint">(the service window is closed: only a template may start the conversation again)</span></label>
      <select id="field-template" name="template" required><option value="">Choose a template…</option>${view.templates.filter(template => template.status === 'APPROVED').map(template => html`<option value="${template.name}:${template.language}">${template.name} · ${template.language}</option>`)}</select>
      <label for="field-variables">Variables <span class="hint">(one per line)</span></label>
      <textarea id="field-variables" name="variables" dir="auto" rows="2"></textarea>
    </div>`}
    <div class="actions"><button type="submit">Send</button></div>
  </form>
</section>`
}

function bubble (item: ThreadItem, view: ThreadView): SafeHtml {
  if (item.direction === 'outbound') {
    const sent = view.payloads.get(item.row.id)
    const text = sent ? outboundText(sent.type, sent.payload) : null
    return html`<li class="bubble outbound"><p dir="auto">${text ?? html`<span class="muted">${item.row.type}</span>`}</p><p class="meta">${time(item.row.createdAt)} · ${badge(item.row.status)}</p></li>`
  }
  const reply = view.replies.get(item.row.id)
  const text = inboundText(item.row.type, item.row.payload)
  return html`<li class="bubble inbound">
    ${reply && html`<blockquote class="quote" dir="auto">${reply.direction === null ? html`<span class="muted">a message not in this workspace</span>` : reply.text ?? reply.type}</blockquote>`}
    <p dir="auto">${text ?? html`<span class="muted">${item.row.type}</span>`}</p>
    <p class="meta">${time(item.row.receivedAt)} · ${item.row.readAt ? html`<span class="read-mark">Read</span>` : html`<span class="muted">Unread</span>`}</p>
  </li>`
}

/** "Open, 23 h 5 min left" from the person's last message, or closed. */
function windowLeft (lastInboundAt: Date | null, now: Date): SafeHtml {
  const left = lastInboundAt === null ? 0 : lastInboundAt.getTime() + SERVICE_WINDOW_MS - now.getTime()
  if (left <= 0) return html`<span class="muted" data-window="closed">Window closed: templates only</span>`
  const minutes = Math.floor(left / 60_000)
  return html`<span data-window="open">Window open: ${Math.floor(minutes / 60)} h ${minutes % 60} min left</span>`
}

