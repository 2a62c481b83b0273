import type { CampaignRecord } from '../../../db/schema.js'
import type { CampaignCounts } from '../../resources/campaign.js'
import { html, type SafeHtml } from '../html.js'
import { badge, csrfField, empty, time } from '../parts.js'

export interface CampaignRow { campaign: CampaignRecord, counts: CampaignCounts, failures: Array<{ code: string, text: string | null, count: number }> }

const BUCKETS: Array<keyof CampaignCounts> = ['waiting', 'queued', 'sent', 'delivered', 'read', 'failed', 'cancelled', 'rejected', 'skipped']

/** Campaigns with their progress (a bar and every count), failure reasons and pause/resume/cancel; the page refreshes itself while one runs. */
export function campaignsContent (rows: CampaignRow[], csrfToken: string): SafeHtml {
  return html`
<p class="page-intro">Campaigns send one template to many recipients, behind your live and queued sends. Create them with <code>POST /api/campaigns.php</code> (JSON or a CSV upload) or <code>outbound</code>; follow and steer them here. This page refreshes itself every few seconds while a campaign is under way.</p>
<section class="card" aria-labelledby="campaigns-heading">
  <h2 id="campaigns-heading">Newest first</h2>
  ${rows.length === 0 ? empty('No campaign yet.') : rows.map(row => campaignCard(row, csrfToken))}
</section>`
}

function campaignCard ({ campaign, counts, failures }: CampaignRow, csrfToken: string): SafeHtml {
  const done = counts.sent + counts.delivered + counts.read + counts.failed + counts.cancelled + counts.rejected + counts.skipped
  const percent = counts.total === 0 ? 100 : Math.floor(100 * done / counts.total)
  const action = (name: 'pause' | 'resume' | 'cancel', label: string, kind = 'secondary') => html`<form method="post" action="/dashboard/campaigns/${campaign.id}/${name}" class="inline">${csrfField(csrfToken)}<button type="submit" class="${kind} small" data-action="${name}">${label}</button></form>`
  const live = campaign.status !== 'completed' && campaign.status !== 'cancelled'
  return html`<article class="card" data-campaign-id="${campaign.id}">
  <h3>${campaign.name} ${badge(campaign.status, campaign.status.replaceAll('_', ' '))}</h3>
  <p class="muted">Template <code>${campaign.template}</code> (${campaign.language}) from ${campaign.phoneNumberId} · starts ${time(campaign.sendAt)}${campaign.completedAt ? html` · completed ${time(campaign.completedAt)}` : ''}</p>
  <p><progress max="100" value="${String(percent)}" aria-label="Progress of ${campaign.name}">${String(percent)}%</progress> <span data-field="progress">${String(percent)}%</span> of ${String(counts.total)}</p>
  <dl class="counts">${BUCKETS.map(bucket => html`<div><dt>${bucket}</dt><dd data-count="${bucket}">${String(counts[bucket])}</dd></div>`)}</dl>
  ${failures.length > 0 && html`<h4>Why messages failed</h4><ul data-field="failures">${failures.map(failure => html`<li><code>${failure.code}</code> ${failure.text ?? ''}: ${String(failure.count)}</li>`)}</ul>`}
  ${live && html`<p class="actions">
    ${campaign.status === 'paused' ? action('resume', 'Resume') : action('pause', 'Pause')}
    ${action('cancel', 'Cancel', 'danger')}
  </p>`}
</article>`
}
