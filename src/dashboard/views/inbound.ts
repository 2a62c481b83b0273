import { inboundFileOf, inboundMediaView } from '../../media/inbound.js'
import type { InboundMessage } from '../../store/inbound.js'
import type { MediaRow } from '../../store/media.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { empty, phone, time } from '../parts.js'
import { inboundMedia } from './inbound-media.js'

/** `media`: the rows of the files these messages carried, by inbound message id (stored, size). */
export interface InboundView { messages: InboundMessage[], numbers: ReadonlyMap<string, string>, media: ReadonlyMap<string, MediaRow> }

export function inboundContent (view: InboundView): SafeHtml {
  return html`
<p class="page-intro">Messages people sent to your connected numbers, newest first. A reply opens the 24-hour window for free-form messages.</p>
<section class="card">
  ${view.messages.length === 0 ? empty('No inbound messages yet.') : html`<div class="table-wrap"><table>
    <thead><tr><th>Received</th><th>From</th><th>To</th><th>Type</th><th>Content</th><th>wamid</th></tr></thead>
    <tbody>${view.messages.map(message => html`<tr>
      <td class="nowrap">${time(message.receivedAt)}</td>
      <td class="nowrap">${sender(message)}</td>
      <td class="nowrap">${identifier(view.numbers.get(message.phoneNumberId) ?? message.phoneNumberId)}</td>
      <td>${message.type}</td>
      <td class="content">${contentOf(message, view.media.get(message.id))}</td>
      <td class="wamid"><code>${message.wamid}</code></td>
    </tr>`)}</tbody>
  </table></div>`}
</section>`
}

/** Digits as a phone number; a `from` that is not digits (US.1234) as given; else the business-scoped user id. */
function sender (message: InboundMessage): string {
  if (message.from === null) return identifier(message.fromUserId ?? '')
  return /^\d+$/.test(message.from) ? phone(message.from) : identifier(message.from)
}

/** The readable part of an inbound message: its text, a button's or list reply's title; a file (with its caption). */
function contentOf (message: InboundMessage, row: MediaRow | undefined): SafeHtml {
  const file = inboundFileOf(message.type, message.payload)
  if (file) return inboundMedia(file.kind, inboundMediaView(file, row))
  const payload = message.payload as Record<string, Record<string, unknown> | undefined>
  const part = payload[message.type] ?? {}
  const reply = (part.button_reply ?? part.list_reply) as { title?: string } | undefined
  const text = part.body ?? part.text ?? reply?.title ?? part.caption ?? part.filename
  return typeof text === 'string' ? html`${text}` : html`<span class="muted">${message.type}</span>`
}
