import type { AuditRow } from '../../store/audit-log.js'
import { html, identifier, type SafeHtml } from '../html.js'
import { empty, time } from '../parts.js'

export interface AuditView {
  entries: AuditRow[]
  /** names for the ids the entries carry: key names, users' emails */
  keyNames: Map<string, string>
  userEmails: Map<string, string>
  /** the next page's cursor, when there may be older entries */
  olderThan?: number
  /** this is a later page: a link back to the newest */
  paged: boolean
}

export function auditContent (view: AuditView): SafeHtml {
  return html`
<p class="page-intro">Settings · Every change made in this workspace by a person or an API key: keys created and revoked, plan changes, connections, webhook endpoints, suppressions, campaigns and dashboard sign-ins. Entries are only ever added.</p>
<section class="card" aria-labelledby="audit-heading">
  <h2 id="audit-heading">Newest first</h2>
  ${view.entries.length === 0 ? empty('Nothing recorded yet.') : html`<div class="table-wrap"><table>
    <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Address</th></tr></thead>
    <tbody>${view.entries.map(entry => html`<tr data-audit-id="${String(entry.id)}">
      <td class="nowrap">${time(entry.at)}</td>
      <td data-field="actor">${actorLabel(entry, view)}</td>
      <td data-field="action"><code>${entry.action}</code></td>
      <td data-field="target">${targetLabel(entry, view)}</td>
      <td class="nowrap">${entry.ip ?? html`<span class="muted">—</span>`}</td>
    </tr>`)}</tbody>
  </table></div>`}
  <p class="actions">
    ${view.paged && html`<a class="button secondary" href="/dashboard/audit">← Newest</a>`}
    ${view.olderThan !== undefined && html`<a class="button secondary" href="/dashboard/audit?before=${String(view.olderThan)}">Older entries →</a>`}
  </p>
</section>`
}

function actorLabel ({ actorKind, actorId }: AuditRow, view: AuditView): SafeHtml {
  if (actorKind === 'key') return html`API key ${named(actorId, view.keyNames)}`
  if (actorKind === 'dashboard') return html`Dashboard: ${actorId ? identifier(view.userEmails.get(actorId) ?? actorId) : 'unknown user'}`
  if (actorKind === 'system') return html`Outbound itself (quality guard)`
  return html`Command line${actorId && html` (${actorId})`}`
}

function targetLabel ({ targetKind, targetId }: AuditRow, view: AuditView): SafeHtml {
  return targetKind === 'key' ? html`key ${named(targetId, view.keyNames)}` : html`${targetKind.replace('_', ' ')} <code>${targetId}</code>`
}

function named (id: string | null, names: Map<string, string>): SafeHtml {
  const name = id ? names.get(id) : undefined
  return name ? html`“${identifier(name)}” <code>${id}</code>` : html`<code>${id ?? 'unknown'}</code>`
}
