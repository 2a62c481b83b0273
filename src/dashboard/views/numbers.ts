import type { PhoneNumber } from '../../store/connections.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { badge } from '../parts.js'

const THROUGHPUT: Record<string, string> = { STANDARD: 'Standard · 80 msg/s', HIGH: 'High · 1,000 msg/s' }

/** The connected numbers with what the upstream says about each: quality, throughput, messaging tier. */
export function numbersTable (numbers: PhoneNumber[]): SafeHtml {
  return html`<div class="table-wrap"><table>
  <thead><tr><th>Number</th><th>Phone number ID</th><th>Quality</th><th>Throughput</th><th>Messaging tier</th></tr></thead>
  <tbody>${numbers.map(number => html`<tr>
    <td><strong class="nowrap">${identifier(number.displayPhoneNumber)}</strong>${number.verifiedName && html`<br><span class="muted">${identifier(number.verifiedName)}</span>`}${number.position === 0 && html`<br><span class="hint">default sender</span>`}</td>
    <td><code>${number.phoneNumberId}</code></td>
    <td>${number.qualityRating ? badge(number.qualityRating) : html`<span class="muted">unknown</span>`}</td>
    <td>${number.throughputLevel ? THROUGHPUT[number.throughputLevel] ?? number.throughputLevel : html`<span class="muted">unknown</span>`}</td>
    <td>${tier(number.messagingLimitTier)}</td>
  </tr>`)}</tbody>
</table></div>`
}

/** TIER_2K → "2K conversations / 24 h": how many people the number may start conversations with. */
function tier (value: string | null): SafeHtml {
  if (!value) return html`<span class="muted">unknown</span>`
  if (value === 'TIER_UNLIMITED') return html`Unlimited`
  const match = /^TIER_(\w+)$/.exec(value)
  return match ? html`${match[1]} conversations / 24 h` : html`${value}`
}
