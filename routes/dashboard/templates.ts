import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { actors } from '../../src/access/audit.js'
import { syncWorkspaceTemplates } from '../../src/connections/connect.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import type { Notice } from '../../src/dashboard/parts.js'
import { draftOfForm, formOfTemplate, TemplateFormSchema, type TemplateForm } from '../../src/dashboard/template-form.js'
import { templateFormContent, type TemplateFormView } from '../../src/dashboard/views/template-form.js'
import { templatesContent } from '../../src/dashboard/views/templates.js'
import { AppError, notFound } from '../../src/errors.js'
import { createTemplate, deleteTemplates, editTemplate } from '../../src/templates/manage.js'
import { UpstreamError } from '../../src/upstream/errors.js'

const DONE: Record<string, string> = { created: 'Submitted for review: the status changes when WhatsApp answers.', edited: 'The edit was submitted for review.', deleted: 'Deleted. The name of an approved template can be used again after 30 days.', synced: 'Synced.' }

/** GET /dashboard/templates, the sync button, and the create, edit and delete of CONTRACT.md 20 through the same room as the API. */
const templates: FastifyPluginAsyncTypebox = async function (app) {
  const deps = { stores: app, cipher: app.cipher, upstream: app.upstream }

  async function render (request: FastifyRequest, reply: FastifyReply, error?: Notice, status = 200) {
    const { workspace, session } = request.account
    const [list, active] = await Promise.all([app.templates.list(workspace.id), app.connections.active(workspace.id)])
    const done = DONE[(request.query as { done?: string }).done ?? '']
    const content = templatesContent({ templates: list, connected: active !== undefined, csrfToken: session.csrfToken, callbackUrl: app.connectDeps.callbackUrl, error, done: done ? { kind: 'success', text: done } : undefined })
    return sendHtml(reply, page(request, { title: 'Templates', active: 'templates' }, content), status)
  }

  function renderForm (request: FastifyRequest, reply: FastifyReply, view: Omit<TemplateFormView, 'csrfToken'>, status = 200) {
    const content = templateFormContent({ ...view, csrfToken: request.account.session.csrfToken })
    return sendHtml(reply, page(request, { title: view.editing ? 'Edit a template' : 'New template', active: 'templates' }, content), status)
  }

  /** The room's refusal as the form shows it: its message, the field it came from marked. */
  function refused (request: FastifyRequest, reply: FastifyReply, form: TemplateForm, error: unknown, editing?: { status: string }) {
    const known = error instanceof AppError ? error : undefined
    if (!known) throw error
    const fieldAtFault = known.extra.field === undefined ? undefined : draftOfForm(form).fieldOf(known.extra.field)
    return renderForm(request, reply, { form, editing, fieldAtFault, result: { kind: 'error', title: `Not submitted (${known.code})`, text: known.message } }, known.statusCode)
  }

  app.get('/templates', { config: { dashboard: 'page' }, schema: { querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } }, async function listTemplates (request, reply) {
    return await render(request, reply)
  })

  app.get('/templates/new', { config: { dashboard: 'page' } }, async function newTemplate (request, reply) {
    return renderForm(request, reply, { form: { language: 'en_US', category: 'UTILITY' } })
  })

  app.post('/templates/new', { config: { dashboard: 'page' }, schema: { body: TemplateFormSchema } }, async function createFromForm (request, reply) {
    const form = request.body as TemplateForm
    try {
      await createTemplate(deps, request.account.workspace.id, draftOfForm(form).draft, actors.account(request))
    } catch (error) {
      return refused(request, reply, form, error)
    }
    return reply.redirect('/dashboard/templates?done=created', 303)
  })

  const TemplateParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

  app.get('/templates/:id/edit', { config: { dashboard: 'page' }, schema: { params: TemplateParams } }, async function editForm (request, reply) {
    const template = await app.templates.byUpstreamId(request.account.workspace.id, request.params.id) ?? fail(request.params.id)
    return renderForm(request, reply, { form: formOfTemplate(template), editing: { status: template.status } })
  })

  app.post('/templates/:id/edit', { config: { dashboard: 'page' }, schema: { params: TemplateParams, body: TemplateFormSchema } }, async function editFromForm (request, reply) {
    const { workspace } = request.account
    const { id } = request.params
    const template = await app.templates.byUpstreamId(workspace.id, id) ?? fail(id)
    const form = { ...request.body, id, name: template.name, language: template.language } as TemplateForm
    const { draft } = draftOfForm(form)
    try {
      await editTemplate(deps, workspace.id, id, { components: draft.components, ...(template.status !== 'APPROVED' && { category: draft.category }) }, actors.account(request))
    } catch (error) {
      return refused(request, reply, { ...form, category: form.category ?? template.category ?? '' }, error, { status: template.status })
    }
    return reply.redirect('/dashboard/templates?done=edited', 303)
  })

  app.post('/templates/delete', { config: { dashboard: 'page' }, schema: { body: Type.Object({ _csrf: Type.Optional(Type.String()), name: Type.String({ maxLength: 512 }), language: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async function deleteFromList (request, reply) {
    try {
      await deleteTemplates(deps, request.account.workspace.id, request.body.name, request.body.language || undefined, actors.account(request))
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      return await render(request, reply, { kind: 'error', title: 'Not deleted', text: error.message }, error.statusCode)
    }
    return reply.redirect('/dashboard/templates?done=deleted', 303)
  })

  app.post('/templates/sync', { config: { dashboard: 'page' } }, async function syncTemplates (request, reply) {
    try {
      await syncWorkspaceTemplates(app.connectDeps, request.account.workspace.id)
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      const code = error.details.code !== undefined ? ` (code ${error.details.code})` : ''
      return await render(request, reply, { kind: 'error', title: 'WhatsApp refused the sync', text: `${error.message}${code}` }, 502)
    }
    return reply.redirect('/dashboard/templates?done=synced', 303)
  })
}

function fail (id: string): never {
  throw notFound(`No template with id ${id}`)
}

export default templates
