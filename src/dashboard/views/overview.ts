import type { Plan } from '../../../db/schema.js'
import type { ActiveConnection } from '../../store/connections.js'
import type { ReachedCounts } from '../../store/message-search.js'
import { html, type SafeHtml } from '../html.js'
import { badge, notice, planBadge, time } from '../parts.js'
import { numbersTable } from './numbers.js'
import { queueCard, type NumberQueue } from './queue.js'

export interface OverviewView {
  plan: Plan
  active: ActiveConnection | undefined
  counts: ReachedCounts
  queues: NumberQueue[]
  csrfToken: string
}

// Counted by the steps reached, so the figures read as a funnel: every read message was delivered
// and sent, and is counted there too (counted by current status, "sent 0, read 2" looked wrong).
const COUNTED: [keyof ReachedCounts, string, string][] = [
  ['sent', 'Sent', 'accepted by WhatsApp'],
  ['delivered', 'Delivered', 'to the phone, read or not'],
  ['read', 'Read', 'opened by the recipient'],
  ['failed', 'Failed', 'not sent, or not delivered'],
  ['waiting', 'Waiting', 'queued or being sent']
]

export function overviewContent (view: OverviewView): SafeHtml {
  return html`
<div class="grid">
  <section class="card" aria-labelledby="plan-heading">
    <h2 id="plan-heading">Plan</h2>
    <p>${planBadge(view.plan)}</p>
    ${planNote(view.plan)}
  </section>
  <section class="card" aria-labelledby="connection-heading">
    <h2 id="connection-heading">Connection</h2>
    ${connectionSummary(view.active)}
  </section>
</div>
<section class="card" aria-labelledby="activity-heading">
  <div class="card-header"><h2 id="activity-heading">Messages in the last 24 hours</h2><a class="button secondary small" href="/dashboard/messages">Open the log</a></div>
  <p class="hint">Each message counts in every step it reached: a read message is also counted as delivered and as sent.</p>
  <dl class="stats">${COUNTED.map(([key, label, hint]) => html`<div><dt>${label}</dt><dd>${view.counts[key]}</dd><dd class="hint">${hint}</dd></div>`)}</dl>
</section>
${view.active && html`<section class="card" aria-labelledby="numbers-heading">
  <div class="card-header"><h2 id="numbers-heading">Numbers</h2><a class="button secondary small" href="/dashboard/compose">Send a message</a></div>
  ${numbersTable(view.active.numbers)}
</section>`}
${queueCard(view.queues, view.csrfToken)}`
}

/** Sending from the dashboard is open to every plan; only the API needs Growth or Scale (SPEC.md 1). */
export function planNote (plan: Plan): SafeHtml {
  if (plan === 'growth' || plan === 'scale') {
    return html`<p class="muted">Includes API access: send programmatically with a key from <a href="/dashboard/keys">Developer Studio</a>, or from this dashboard.</p>`
  }
  return notice({
    kind: 'warning',
    title: 'API access needs the Growth plan',
    text: html`Your ${plan} plan includes sending from this dashboard. Calls to the API with your keys get 403 until the workspace moves to Growth or Scale.`
  })
}

function connectionSummary (active: ActiveConnection | undefined): SafeHtml {
  if (!active) {
    return html`<p>No number is connected, so nothing can be sent yet.</p><p><a class="button" href="/dashboard/connection">Connect a number</a></p>`
  }
  const { connection, numbers } = active
  return html`<dl class="facts">
  <dt>State</dt><dd>${badge('active', 'connected')}</dd>
  <dt>WABA ID</dt><dd><code>${connection.wabaId}</code></dd>
  <dt>Numbers</dt><dd>${numbers.length}</dd>
  <dt>Webhook</dt><dd>${connection.webhookRegistered ? 'registered' : html`<span class="field-error">not registered yet (retried every 30 s)${connection.webhookError && html`: ${connection.webhookError}`}</span>`}</dd>
  <dt>Since</dt><dd>${time(connection.createdAt)}</dd>
</dl>
<p class="muted"><a href="/dashboard/connection">Manage the connection</a></p>`
}
