import { throughputOf } from '../../pacer/throughput.js'
import type { PhoneNumber } from '../../store/connections.js'
import type { QueueDepth } from '../../store/queued-sends.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { csrfField } from '../parts.js'

export interface NumberQueue extends QueueDepth {
  display: string
  /** the number's paced rate: what its queue drains at when no live send takes a slot */
  mps: number
}

/** Each number's queue with the rate it drains at (its throughput). */
export function numberQueues (depths: QueueDepth[], numbers: PhoneNumber[], overrideMps?: number): NumberQueue[] {
  return depths.map(depth => {
    const number = numbers.find(candidate => candidate.phoneNumberId === depth.phoneNumberId)
    return { ...depth, display: number?.displayPhoneNumber ?? depth.phoneNumberId, mps: throughputOf(number?.throughputLevel ?? null, overrideMps) }
  })
}

/** Queued sends (Prefer: respond-async) per number: depth, oldest, rate; and a cancel for the workspace's whole queue. */
export function queueCard (queues: NumberQueue[], csrfToken: string): SafeHtml {
  if (queues.length === 0) return html``
  const now = Date.now()
  return html`<section class="card" aria-labelledby="queue-heading">
  <div class="card-header"><h2 id="queue-heading">Queued messages</h2></div>
  <div class="table-wrap"><table>
  <thead><tr><th>Number</th><th>Queued</th><th>Oldest</th><th>Rate</th><th>Drained in about</th></tr></thead>
  <tbody>${queues.map(queue => html`<tr>
    <td><strong class="nowrap">${identifier(queue.display)}</strong></td>
    <td>${queue.depth}</td>
    <td>${duration(now - queue.oldest.getTime())} ago</td>
    <td>${queue.mps} msg/s</td>
    <td>${duration(queue.depth / queue.mps * 1000)}</td>
  </tr>`)}</tbody>
  </table></div>
  <details class="confirm">
    <summary class="button secondary small">Cancel queued messages…</summary>
    <form class="confirm-box" method="post" action="/dashboard/queue/cancel">
      ${csrfField(csrfToken)}
      <p>Cancel every message of this workspace still waiting in the queue? They end failed (cancelled) and are not sent; messages already on their way are not affected.</p>
      <button type="submit" class="danger small">Cancel queued messages</button>
    </form>
  </details>
</section>`
}

function duration (ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`
  return `${(seconds / 3600).toFixed(1)} h`
}
