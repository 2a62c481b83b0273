import type { Template } from '../../store/templates.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, notice, templateName, time, type Notice } from '../parts.js'

export interface TemplatesView { templates: Template[], connected: boolean, csrfToken: string, error?: Notice }

export function templatesContent (view: TemplatesView): SafeHtml {
  return html`
<p class="page-intro">Message templates of the connected account, as last synced. Only approved templates can be sent; status changes arrive by webhook, and a sync pulls the full list.</p>
${view.error && notice(view.error)}
<section class="card">
  <div class="card-header">
    <h2>Templates</h2>
    ${view.connected && html`<form method="post" action="/dashboard/templates/sync">${csrfField(view.csrfToken)}<button type="submit" class="secondary small">Sync now</button></form>`}
  </div>
  ${view.templates.length === 0
    ? empty(view.connected ? 'No templates synced. Create them in WhatsApp Manager, then sync.' : html`Connect a number to see its templates. <a href="/dashboard/connection">Connect</a>`)
    : html`<div class="table-wrap"><table>
    <thead><tr><th>Name</th><th>Language</th><th>Category</th><th>Status</th><th>Body</th><th>Updated</th></tr></thead>
    <tbody>${view.templates.map(template => html`<tr>
      <td>${templateName(template.name)}</td>
      <td>${template.language}</td>
      <td>${template.category ?? '—'}</td>
      <td>${badge(template.status)}</td>
      <td>${bodyOf(template)}</td>
      <td class="nowrap">${time(template.updatedAt)}</td>
    </tr>`)}</tbody>
  </table></div>`}
</section>`
}

function bodyOf (template: Template): string {
  const body = (template.components as { type?: string, text?: string }[]).find(component => component.type === 'BODY')?.text
  return body ?? '—'
}
