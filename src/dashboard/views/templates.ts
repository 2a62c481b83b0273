import type { Template } from '../../store/templates.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, notice, templateName, time, type Notice } from '../parts.js'

export interface TemplatesView { templates: Template[], connected: boolean, csrfToken: string, callbackUrl: string, error?: Notice, done?: Notice }

export function templatesContent (view: TemplatesView): SafeHtml {
  return html`
<p class="page-intro">Message templates of the connected account. Only approved templates can be sent. Create and edit them here, with the API (<code>/api/templates.php</code>) or as code (<code>outbound templates plan|apply</code>); a sync pulls the full list.</p>
<p class="hint">Template status webhooks always go to the Meta app's own callback URL: set it to <code>${view.callbackUrl}</code> in the app's WhatsApp settings, so that approvals reach Outbound.</p>
${view.error && notice(view.error)}
${view.done && notice(view.done)}
<section class="card">
  <div class="card-header">
    <h2>Templates</h2>
    ${view.connected && html`<div class="actions"><a class="button small" href="/dashboard/templates/new">New template</a><form method="post" action="/dashboard/templates/sync">${csrfField(view.csrfToken)}<button type="submit" class="secondary small">Sync now</button></form></div>`}
  </div>
  ${view.templates.length === 0
    ? empty(view.connected ? 'No templates yet. Create one, or sync those made in WhatsApp Manager.' : html`Connect a number to see its templates. <a href="/dashboard/connection">Connect</a>`)
    : html`<div class="table-wrap"><table>
    <thead><tr><th>Name</th><th>Language</th><th>Category</th><th>Status</th><th>Body</th><th>Updated</th><th><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${view.templates.map(template => html`<tr data-template="${template.name}:${template.language}">
      <td>${templateName(template.name)}</td>
      <td>${template.language}</td>
      <td>${template.category ?? '—'}</td>
      <td>${badge(template.status)}</td>
      <td>${bodyOf(template)}</td>
      <td class="nowrap">${time(template.updatedAt)}</td>
      <td class="nowrap">${template.upstreamId && view.connected && html`<a href="/dashboard/templates/${encodeURIComponent(template.upstreamId)}/edit">Edit</a>
        <form class="inline-form" method="post" action="/dashboard/templates/delete">${csrfField(view.csrfToken)}<input type="hidden" name="name" value="${template.name}"><input type="hidden" name="language" value="${template.language}"><button type="submit" class="secondary small" aria-label="Delete ${template.name} (${template.language})">Delete</button></form>`}</td>
    </tr>`)}</tbody>
  </table></div>`}
</section>`
}

function bodyOf (template: Template): string {
  const body = (template.components as { type?: string, text?: string }[]).find(component => String(component.type).toUpperCase() === 'BODY')?.text
  return body ?? '—'
}
