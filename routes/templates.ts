import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actors } from '../src/access/audit.js'
import { notFound } from '../src/errors.js'
import { ErrorEnvelopeSchema } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'
import { cursorCodec } from '../src/resources/cursor.js'
import { createTemplate, deleteTemplates, editTemplate } from '../src/templates/manage.js'
import { TemplateBodySchema, TemplateDeletedSchema, TemplateDeleteQuerySchema, TemplateListSchema, TemplateOneSchema, TemplateQuerySchema } from '../src/templates/schemas.js'
import { templateView } from '../src/templates/view.js'

const errors = { '4xx': ErrorEnvelopeSchema, '5xx': ErrorEnvelopeSchema }
const cursor = cursorCodec('t1:', /^tpl_[0-9a-z]{1,60}$/)

/** The template catalog, and templates created, edited and deleted from Outbound (CONTRACT.md 20). */
const templates: FastifyPluginAsyncTypebox = async function (app) {
  const common = { tags: ['templates'], security: [{ apiKey: [] }] }
  const deps = { stores: app, cipher: app.cipher, upstream: app.upstream }

  app.get('/api/templates.php', {
    config: { auth: 'apiKey', scopes: ['templates:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'listTemplates',
      summary: 'List the template catalog, or read one template',
      description: 'By name, then language; filters name, language, status, category; paged with next_cursor. ?id= (the upstream id) reads one. Needs the templates:read scope.',
      querystring: TemplateQuerySchema,
      response: { 200: { anyOf: [TemplateListSchema, TemplateOneSchema] }, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function listTemplates (request) {
    const { workspaceId } = request.apiKey
    const { id, limit: given, cursor: after, ...filters } = request.query
    if (id !== undefined) {
      const template = await app.templates.byUpstreamId(workspaceId, id) ?? (() => { throw notFound('No template with this id in your workspace') })()
      return { ok: true as const, template: templateView(template) }
    }
    const limit = given === undefined ? 50 : Number(given)
    const rows = await app.templates.page(workspaceId, filters, limit + 1, after === undefined ? undefined : cursor.decode(after))
    const page = rows.slice(0, limit)
    return { ok: true as const, templates: page.map(templateView), next_cursor: rows.length > limit ? cursor.encode(page[page.length - 1].id) : null }
  })

  app.post('/api/templates.php', {
    config: { auth: 'apiKey', scopes: ['templates:write'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'createOrEditTemplate',
      summary: 'Create a template, or edit one (?id=)',
      description: 'Checked against the upstream\'s rules before anything goes upstream: a break is 422 invalid_template with field = the JSON path within the template. ' +
        'Create: 201, usually PENDING; 409 template_exists; 422 template_name_locked (frees_at). Edit (?id=, components and, unless APPROVED, category): ' +
        'APPROVED, REJECTED or PAUSED only (422 template_not_editable); an APPROVED one once in 24 h and 10 times in 30 days (422 template_edit_limit, next_edit_at). Needs the templates:write scope and a connection.',
      querystring: TemplateQuerySchema,
      body: TemplateBodySchema,
      response: { 200: TemplateOneSchema, 201: TemplateOneSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function createOrEdit (request, reply) {
    const { workspaceId } = request.apiKey
    const { id } = request.query
    if (id !== undefined) {
      const edited = await editTemplate(deps, workspaceId, id, { components: request.body.components, category: request.body.category }, actors.key(request))
      return { ok: true as const, template: templateView(edited) }
    }
    const created = await createTemplate(deps, workspaceId, request.body, actors.key(request))
    return reply.code(201).send({ ok: true as const, template: templateView(created) })
  })

  app.delete('/api/templates.php', {
    config: { auth: 'apiKey', scopes: ['templates:write'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'deleteTemplate',
      summary: 'Delete a template: one language, or every language of the name',
      description: 'The name of a deleted APPROVED template is locked for 30 days (a create answers 422 template_name_locked). Needs the templates:write scope and a connection.',
      querystring: TemplateDeleteQuerySchema,
      response: { 200: TemplateDeletedSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function deleteTemplate (request) {
    const deleted = await deleteTemplates(deps, request.apiKey.workspaceId, request.query.name, request.query.language, actors.key(request))
    return { ok: true as const, deleted }
  })
}

export default templates
