import type { FastifyPluginAsync } from 'fastify'
import type { StoredTemplate } from '../accounts.js'
import { applyFaults } from '../apply-faults.js'
import { authorizeWaba } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { selectFields } from '../fields.js'
import { TEMPLATE_FIELDS, templateNode } from '../nodes.js'
import { pageUrlFor, paginate, type PageQuery } from '../paging.js'
import { originOf } from './phone-numbers.js'

interface Filters { fields?: string, status?: string, name?: string, language?: string, category?: string }

export function messageTemplateRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function messageTemplates (app) {
    app.get<{ Params: { id: string }, Querystring: PageQuery & Filters }>('/:id/message_templates', async function listTemplates (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const templates = waba.templates.filter(matching(request.query)).map(function listed (template) {
        return selectFields(templateNode(template), request.query.fields, TEMPLATE_FIELDS, 'WhatsAppBusinessHSM')
      })
      return paginate(templates, request.query, pageUrlFor(originOf(request), request.url))
    })
  }
}

function matching (filters: Filters): (template: StoredTemplate) => boolean {
  const statuses = filters.status?.toUpperCase().split(',')
  return function matches (template) {
    return (statuses === undefined || statuses.includes(template.status)) &&
      (filters.name === undefined || template.name.includes(filters.name)) &&
      (filters.language === undefined || template.language === filters.language) &&
      (filters.category === undefined || template.category === filters.category.toUpperCase())
  }
}
