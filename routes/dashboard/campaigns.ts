import multipart from '@fastify/multipart'
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors, audit } from '../../src/access/audit.js'
import { readCampaignUpload, type CampaignSender, type CreateDeps } from '../../src/campaigns/create.js'
import { fillTemplateText } from '../../src/campaigns/preview.js'
import { identifier } from '../../src/dashboard/html.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { campaignContent, campaignsContent, newCampaignContent, pausedNote, previewContent, progressOf, type CampaignRow } from '../../src/dashboard/views/campaigns.js'
import { AppError, noActiveConnection, notFound } from '../../src/errors.js'
import { checkFormToken } from '../../plugins/csrf.js'

const ACTIONS = { pause: 'campaign.paused', resume: 'campaign.resumed', cancel: 'campaign.cancelled' } as const
const CAMPAIGN_ID = Type.String({ pattern: '^cmp_[0-9a-z]{1,60}$' })
const UPLOAD_ID = Type.String({ pattern: '^cup_[0-9a-z]{1,60}$' })
// the preview shows this many of the messages to send
const PREVIEW_ROWS = 10

/**
 * Campaigns in the dashboard (CONTRACT.md 15): create one from a CSV upload (a preview of the first
 * messages and the rejected rows, then a confirmation), follow its progress live (dashboard.js polls
 * the status endpoint), read why messages failed, pause, resume and cancel it.
 */
const campaigns: FastifyPluginAsyncTypebox = async function (app) {
  const { config } = app
  // Only this scope reads multipart bodies; the upload route reads its parts itself (the one reader).
  await app.register(multipart, { limits: { fieldNameSize: 200, fields: 20, parts: 21, headerPairs: 100 } })

  const createDeps: CreateDeps = {
    templatesNamed: async (connection, name) => await app.audience.templatesNamed(connection, name),
    suppressedAmong: async (workspaceId, recipients) => await app.suppressions.suppressedAmong(workspaceId, recipients),
    bodyLimitBytes: config.CAMPAIGN_BODY_LIMIT_BYTES
  }

  async function row (workspaceId: string, id: string): Promise<CampaignRow | undefined> {
    const found = await app.campaigns.get(workspaceId, id)
    return found && { ...found, failures: await app.campaigns.failureReasons(id) }
  }

  async function renderNew (request: FastifyRequest, reply: FastifyReply, options: { values?: Record<string, string>, error?: AppError } = {}) {
    const { workspace, session } = request.account
    const [active, templates] = await Promise.all([app.connections.active(workspace.id), app.templates.list(workspace.id)])
    const content = newCampaignContent({
      csrfToken: session.csrfToken, templates, numbers: active?.numbers ?? [], values: options.values, maxBytes: config.CAMPAIGN_BODY_LIMIT_BYTES,
      error: options.error && { message: options.error.message, field: options.error.extra.field }
    })
    return sendHtml(reply, page(request, { title: 'New campaign', active: 'campaigns' }, content), options.error?.statusCode ?? 200)
  }

  app.get('/campaigns', { config: { dashboard: 'page' } }, async function showCampaigns (request, reply) {
    const workspaceId = request.account.workspace.id
    const listed = await app.campaigns.page(workspaceId, { limit: 20 })
    const rows = await Promise.all((listed?.rows ?? []).map(async found => ({ ...found, failures: await app.campaigns.failureReasons(found.campaign.id) })))
    return sendHtml(reply, page(request, { title: 'Campaigns', active: 'campaigns' }, campaignsContent(rows, request.account.session.csrfToken)))
  })

  app.get('/campaigns/new', { config: { dashboard: 'page' } }, async function newCampaignForm (request, reply) {
    return await renderNew(request, reply)
  })

  app.post('/campaigns/upload', {
    bodyLimit: config.CAMPAIGN_BODY_LIMIT_BYTES,
    config: { dashboard: 'page', csrf: 'multipart-field' }
  }, async function uploadCampaign (request, reply) {
    const { workspace, user } = request.account
    const active = await app.connections.active(workspace.id)
    if (!active || active.numbers.length === 0) throw noActiveConnection()
    // a dashboard user may send from every number of the connection
    const sender: CampaignSender = { workspaceId: workspace.id, apiKeyId: null, connection: active.connection, numbers: active.numbers, allow: () => {} }
    let seen: Readonly<Record<string, string>> = {}
    try {
      const draft = await readCampaignUpload(createDeps, request, sender, {
        beforeFile: fields => { seen = fields; checkFormToken(request, fields._csrf) }
      })
      const upload = await app.campaignUploads.save(workspace.id, user.id, draft)
      return await reply.redirect(`/dashboard/campaigns/uploads/${upload.id}`, 303)
    } catch (error) {
      // a refused form is shown again with what was typed and why; the token's 403 and the rest go to the error page
      if (error instanceof AppError && (error.statusCode === 422 || error.statusCode === 413)) {
        const { _csrf: _token, ...values } = seen
        return await renderNew(request, reply, { values, error })
      }
      throw error
    }
  })

  app.get('/campaigns/uploads/:id', { config: { dashboard: 'page' }, schema: { params: Type.Object({ id: UPLOAD_ID }) } }, async function previewUpload (request, reply) {
    const { workspace, session } = request.account
    const upload = await app.campaignUploads.get(workspace.id, request.params.id)
    if (!upload) throw notFound('This upload has expired, was confirmed or was discarded: upload the file again')
    const { campaign, recipients } = upload.draft
    const catalog = (await app.templates.byName(workspace.id, campaign.template)).find(template => template.language === campaign.language)
    const content = previewContent({
      uploadId: upload.id,
      csrfToken: session.csrfToken,
      name: campaign.name,
      template: campaign.template,
      language: campaign.language,
      phoneNumberId: campaign.phoneNumberId,
      sendAt: campaign.sendAt,
      accepted: recipients.length,
      rejected: campaign.rejected,
      skipped: campaign.skipped,
      rejections: campaign.rejections,
      first: recipients.slice(0, PREVIEW_ROWS).map(recipient => ({ to: recipient.to, text: fillTemplateText(catalog?.components ?? [], recipient.variables), clientReference: recipient.clientReference })),
      expiresAt: upload.expiresAt
    })
    return sendHtml(reply, page(request, { title: 'Check and confirm the campaign', active: 'campaigns' }, content))
  })

  app.post('/campaigns/uploads/:id/confirm', { config: { dashboard: 'page' }, schema: { params: Type.Object({ id: UPLOAD_ID }) } }, async function confirmUpload (request, reply) {
    const { workspace } = request.account
    const upload = await app.campaignUploads.get(workspace.id, request.params.id)
    if (!upload) throw notFound('This upload has expired, was confirmed or was discarded: upload the file again')
    const { campaign, recipients } = upload.draft
    const created = await app.campaigns.create(campaign, recipients, async (tx, row) => {
      // the upload goes with the campaign's creation: a second confirmation finds nothing to create
      if (!await app.campaignUploads.take(tx, workspace.id, upload.id)) throw notFound('This upload was confirmed already')
      await audit.of<typeof row>(actors.account(request), 'campaign.created', made => ({ workspaceId: made.workspaceId, target: { kind: 'campaign', id: made.id } }))?.(tx, row)
    }).catch(async (error: unknown) => {
      // confirmed twice at once: the other confirmation created it
      if (await app.campaigns.get(workspace.id, campaign.id)) return { id: campaign.id }
      throw error
    })
    app.sendQueue.wake()
    return await reply.redirect(`/dashboard/campaigns/${created.id}`, 303)
  })

  app.post('/campaigns/uploads/:id/discard', { config: { dashboard: 'page' }, schema: { params: Type.Object({ id: UPLOAD_ID }) } }, async function discardUpload (request, reply) {
    await app.campaignUploads.take(app.database.db, request.account.workspace.id, request.params.id)
    return await reply.redirect('/dashboard/campaigns', 303)
  })

  app.get('/campaigns/:id', { config: { dashboard: 'page' }, schema: { params: Type.Object({ id: CAMPAIGN_ID }) } }, async function showCampaign (request, reply) {
    const found = await row(request.account.workspace.id, request.params.id)
    if (!found) throw notFound('No such campaign in this workspace')
    return sendHtml(reply, page(request, { title: `Campaign ${identifier(found.campaign.name)}`, active: 'campaigns' }, campaignContent(found, request.account.session.csrfToken)))
  })

  // What dashboard.js needs to refresh a campaign's card: display strings only.
  app.get('/campaigns/:id/status', { config: { dashboard: 'json' }, schema: { params: Type.Object({ id: CAMPAIGN_ID }) } }, async function liveCampaign (request) {
    const found = await row(request.account.workspace.id, request.params.id)
    if (!found) throw notFound('No such campaign in this workspace')
    const { campaign, counts, failures } = found
    return {
      ok: true,
      campaign: { id: campaign.id, status: campaign.status, status_label: campaign.status.replaceAll('_', ' '), progress: progressOf(counts), total: counts.total, paused_note: pausedNote(campaign) },
      counts,
      failures: failures.map(failure => ({ code: failure.code, text: `${failure.text ?? ''}: ${failure.count}` }))
    }
  })

  app.post('/campaigns/:id/:action', {
    config: { dashboard: 'page' },
    schema: { params: Type.Object({ id: CAMPAIGN_ID, action: Type.Union([Type.Literal('pause'), Type.Literal('resume'), Type.Literal('cancel')]) }) }
  }, async function actOnCampaign (request, reply) {
    const { id, action } = request.params
    const acted = await app.campaigns.act(request.account.workspace.id, id, action,
      audit.of(actors.account(request), ACTIONS[action], campaign => ({ workspaceId: campaign.workspaceId, target: { kind: 'campaign', id: campaign.id } })))
    if (!acted) throw notFound('No such campaign in this workspace')
    if (action !== 'pause') app.sendQueue.wake()
    return await reply.redirect(`/dashboard/campaigns/${id}`, 303)
  })
}

export default campaigns
