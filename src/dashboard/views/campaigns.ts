import type { CampaignRecord, PausedReason } from '../../../db/schema.js'
import type { Rejection } from '../../campaigns/recipients.js'
import type { CampaignCounts } from '../../resources/campaign.js'
import type { PhoneNumber } from '../../store/connections.js'
import type { Template } from '../../store/templates.js'
import { flag, html, identifier, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, field, phone, time } from '../parts.js'

export interface CampaignRow { campaign: CampaignRecord, counts: CampaignCounts, failures: Array<{ code: string, text: string | null, count: number }> }

const BUCKETS: Array<keyof CampaignCounts> = ['waiting', 'queued', 'sent', 'delivered', 'read', 'failed', 'cancelled', 'rejected', 'skipped']
const LIVE = new Set(['scheduled', 'running', 'paused', 'waiting_for_limit'])

/** How far the campaign got: every recipient no longer waiting or queued, in percent. */
export function progressOf (counts: CampaignCounts): number {
  const done = counts.total - counts.waiting - counts.queued
  return counts.total === 0 ? 100 : Math.floor(100 * done / counts.total)
}

/** The list: each campaign's progress and counts, live (dashboard.js), and a way to create one. */
export function campaignsContent (rows: CampaignRow[], csrfToken: string): SafeHtml {
  return html`
<p class="page-intro">Campaigns send one template to many recipients, behind your live and queued sends. Create one from a CSV file here (you see the first rows and the rejected ones before confirming), with <code>POST /api/campaigns.php</code> or with <code>outbound</code>; follow and steer them here.</p>
<p class="actions"><a class="button" href="/dashboard/campaigns/new">New campaign from a CSV</a></p>
<section class="card" aria-labelledby="campaigns-heading">
  <h2 id="campaigns-heading">Newest first</h2>
  ${rows.length === 0 ? empty('No campaign yet.') : rows.map(row => campaignCard(row, csrfToken, true))}
</section>`
}

/** One campaign's page: its progress bar and counts (refreshed by dashboard.js), why messages failed, pause/resume/cancel. */
export function campaignContent (row: CampaignRow, csrfToken: string): SafeHtml {
  return html`<p><a href="/dashboard/campaigns">← All campaigns</a></p>${campaignCard(row, csrfToken, false)}`
}

function campaignCard ({ campaign, counts, failures }: CampaignRow, csrfToken: string, linked: boolean): SafeHtml {
  const percent = progressOf(counts)
  const live = LIVE.has(campaign.status)
  const action = (name: 'pause' | 'resume' | 'cancel', label: string, kind: string, hidden: boolean) => html`<form method="post" action="/dashboard/campaigns/${campaign.id}/${name}" data-when="${name}"${flag('hidden', hidden)}>${csrfField(csrfToken)}<button type="submit" class="${kind} small">${label}</button></form>`
  return html`<article class="card campaign" data-campaign-id="${campaign.id}"${live ? html` data-live-campaign="/dashboard/campaigns/${campaign.id}/status"` : ''}>
  <h3>${linked ? html`<a href="/dashboard/campaigns/${campaign.id}">${identifier(campaign.name)}</a>` : identifier(campaign.name)} <span data-field="status-badge">${badge(campaign.status, campaign.status.replaceAll('_', ' '))}</span></h3>
  <p class="muted">Template <code class="template-name">${campaign.template}</code> (${campaign.language}) from ${campaign.phoneNumberId} · starts ${time(campaign.sendAt)}${campaign.completedAt ? html` · completed ${time(campaign.completedAt)}` : ''}</p>
  ${pausedBlock(campaign)}
  <p class="campaign-progress"><progress max="100" value="${String(percent)}" aria-label="Progress of ${campaign.name}">${String(percent)}%</progress> <span><span data-field="progress">${String(percent)}%</span> of <span data-field="total">${String(counts.total)}</span></span></p>
  <dl class="counts">${BUCKETS.map(bucket => html`<div><dt>${bucket}</dt><dd data-count="${bucket}">${String(counts[bucket])}</dd></div>`)}</dl>
  <div data-failures${flag('hidden', failures.length === 0)}><h4>Why messages failed</h4><ul data-field="failures">${failures.map(failure => html`<li><code>${failure.code}</code> ${failure.text ?? ''}: ${String(failure.count)}</li>`)}</ul></div>
  <div class="actions" data-actions${flag('hidden', !live)}>
    ${action('pause', 'Pause', 'secondary', campaign.status === 'paused' || !live)}
    ${action('resume', 'Resume', 'secondary', campaign.status !== 'paused')}
    ${action('cancel', 'Cancel', 'danger', !live)}
  </div>
</article>`
}

/** Why a paused campaign stopped and what will start it again (CONTRACT.md 21). */
const PAUSED_BECAUSE: Record<PausedReason, { why: string, resumes: string }> = {
  number_flagged: { why: 'Paused by the quality guard: its number was flagged (quality RED).', resumes: 'It resumes by itself once the number has been unflagged (quality back to yellow or green) for the recovery time, or when you resume it.' },
  tier_downgraded: { why: "Paused by the quality guard: its number's messaging limit dropped below what the campaign has left to send.", resumes: 'It resumes by itself as soon as its remaining recipients fit what the limit has left, or once the limit has been raised again for the recovery time, or when you resume it.' },
  template_paused: { why: 'Paused by the quality guard: its template was paused or disabled by Meta.', resumes: 'It resumes by itself once the template has been approved again for the recovery time, or when you resume it.' },
  template_quality_red: { why: "Paused by the quality guard: its template's quality turned red.", resumes: "It resumes by itself once the template's quality has been back to yellow or green for the recovery time, or when you resume it." },
  failure_rate: { why: 'Paused by the quality guard: too many of its last messages failed with errors that signal blocks, reports or opt-outs.', resumes: 'It resumes only when you resume it: check the failure reasons below first.' },
  manual: { why: 'Paused by hand.', resumes: 'It resumes when you resume it.' }
}

/** Why the campaign stopped and what will start it again, in words; null when it is not paused. */
export function pausedNote (campaign: Pick<CampaignRecord, 'status' | 'pausedReason'>): string | null {
  if (campaign.status !== 'paused') return null
  const reason = PAUSED_BECAUSE[campaign.pausedReason ?? 'manual']
  return `${reason.why} ${reason.resumes}`
}

function pausedBlock (campaign: CampaignRecord): SafeHtml {
  const note = pausedNote(campaign)
  return html`<p class="paused-reason" data-paused-reason="${campaign.status === 'paused' ? campaign.pausedReason ?? 'manual' : ''}" data-field="paused-note"${flag('hidden', note === null)}>${note ?? ''}</p>`
}

export interface NewCampaignView {
  csrfToken: string
  templates: Template[]
  numbers: PhoneNumber[]
  values?: Record<string, string>
  error?: { message: string, field?: string }
  maxBytes: number
}

/** The upload form: multipart, the CSRF token first (it is checked before the file is read). */
export function newCampaignContent (view: NewCampaignView): SafeHtml {
  const values = view.values ?? {}
  const errorOn = (name: string) => view.error && (view.error.field === name || (name === 'file' && view.error.field === undefined)) ? view.error.message : undefined
  const approved = view.templates.filter(template => template.status === 'APPROVED')
  return html`
<p class="page-intro">A CSV file (UTF-8) with a header row: <code>to</code>, then one column per variable of the template's body (<code>1</code>, <code>2</code>, … or its named parameters), and an optional <code>client_reference</code>. Up to 100,000 rows. Nothing is sent until you confirm on the next page.</p>
<section class="card" aria-labelledby="new-campaign">
  <h2 id="new-campaign">New campaign</h2>
  ${view.error && html`<p class="field-error" role="alert" data-upload-error>${view.error.message}</p>`}
  <form method="post" action="/dashboard/campaigns/upload" enctype="multipart/form-data" class="stack">
    ${csrfField(view.csrfToken)}
    ${field({ name: 'name', label: 'Name', value: values.name, required: true, maxlength: 200, error: errorOn('name') })}
    <div class="field">
      <label for="field-template">Template</label>
      <select id="field-template" name="template" required>${approved.map(template => html`<option value="${template.name}" data-language="${template.language}"${flag('selected', values.template === template.name)}>${template.name} · ${template.language}</option>`)}</select>
      ${errorOn('template') && html`<span class="field-error">${errorOn('template')}</span>`}
    </div>
    ${field({ name: 'language', label: 'Language', value: values.language, maxlength: 12, placeholder: 'en_US', hint: 'Needed only when the template exists in several languages.', error: errorOn('language') })}
    <div class="field">
      <label for="field-phone_number_id">From</label>
      <select id="field-phone_number_id" name="phone_number_id">${view.numbers.map(number => html`<option value="${number.phoneNumberId}"${flag('selected', values.phone_number_id === number.phoneNumberId)}>${number.displayPhoneNumber}</option>`)}</select>
    </div>
    ${field({ name: 'send_at', label: 'Start at', value: values.send_at, placeholder: '2030-01-01T09:00:00Z', hint: 'Optional, ISO 8601 with a time zone; empty starts at once.', error: errorOn('send_at') })}
    <div class="field">
      <label for="field-file">CSV file</label>
      <input id="field-file" name="file" type="file" accept=".csv,text/csv" required>
      <span class="hint">At most ${String(Math.floor(view.maxBytes / (1024 * 1024)))} MiB.</span>
      ${errorOn('file') && html`<span class="field-error">${errorOn('file')}</span>`}
    </div>
    <p class="actions"><button type="submit">Preview</button> <a href="/dashboard/campaigns">Back</a></p>
  </form>
</section>`
}

export interface PreviewView {
  uploadId: string
  csrfToken: string
  name: string
  template: string
  language: string
  phoneNumberId: string
  sendAt: Date
  accepted: number
  rejected: number
  skipped: number
  rejections: Rejection[]
  /** the first recipients as they will be sent: number and the template's text filled in */
  first: Array<{ to: string, text: string, clientReference: string | null }>
  expiresAt: Date
}

/** What the upload will send, and what it refused, before anything is created. */
export function previewContent (view: PreviewView): SafeHtml {
  return html`
<p class="page-intro">Nothing is sent yet. Check the first messages and the rejected rows, then confirm. This upload waits until ${time(view.expiresAt)}.</p>
<section class="card" aria-labelledby="preview-heading" data-preview="${view.uploadId}">
  <h2 id="preview-heading">${identifier(view.name)}</h2>
  <p>Template <code class="template-name">${view.template}</code> (${view.language}) from ${view.phoneNumberId}, starting ${time(view.sendAt)}.</p>
  <dl class="counts">
    <div><dt>to send</dt><dd data-field="accepted">${String(view.accepted)}</dd></div>
    <div><dt>rejected rows</dt><dd data-field="rejected">${String(view.rejected)}</dd></div>
    <div><dt>skipped (opted out)</dt><dd data-field="skipped">${String(view.skipped)}</dd></div>
  </dl>
  <h3>The first ${String(view.first.length)} messages as they will be sent</h3>
  ${view.first.length === 0 ? empty('No row can be sent.') : html`<div class="table-wrap"><table data-preview-rows>
    <thead><tr><th>To</th><th>Message</th><th>Reference</th></tr></thead>
    <tbody>${view.first.map(row => html`<tr><td class="nowrap">${phone(row.to)}</td><td class="wrap">${identifier(row.text)}</td><td>${identifier(row.clientReference ?? '')}</td></tr>`)}</tbody>
  </table></div>`}
  <h3>Rejected rows${view.rejected > view.rejections.length ? ` (the first ${view.rejections.length} of ${view.rejected})` : ''}</h3>
  ${view.rejections.length === 0 ? empty('No row was rejected.') : html`<div class="table-wrap"><table data-rejected-rows>
    <thead><tr><th>Row</th><th>Field</th><th>Why</th></tr></thead>
    <tbody>${view.rejections.map(rejection => html`<tr><td>${String(rejection.row)}</td><td><code>${rejection.field}</code></td><td class="wrap">${rejection.error}</td></tr>`)}</tbody>
  </table></div>`}
  <div class="actions">
    <form method="post" action="/dashboard/campaigns/uploads/${view.uploadId}/confirm">${csrfField(view.csrfToken)}<button type="submit"${flag('disabled', view.accepted === 0 && view.skipped === 0)}>Confirm and create the campaign</button></form>
    <form method="post" action="/dashboard/campaigns/uploads/${view.uploadId}/discard">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Discard</button></form>
  </div>
</section>`
}
