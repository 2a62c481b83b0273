import type { FastifyPluginAsync } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { accessToken, authorizeWaba } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { GraphError, invalidParameter, invalidToken } from '../graph-error.js'
import { isObject, requireString } from '../json.js'
import { startReview, uppercaseEnums } from '../template-review.js'

const CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY']
const EDITABLE = ['APPROVED', 'REJECTED', 'PAUSED']

/** Creating, editing and deleting templates (upstream-facts.md 8.1, 8.3, 8.4). */
export function templateManagementRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function templateManagement (app) {
    app.post<{ Params: { id: string } }>('/:id/message_templates', async function createTemplate (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const body = isObject(request.body) ? request.body : {}
      const name = requireString(body.name, 'name')
      if (!/^[a-z0-9_]{1,512}$/.test(name)) throw invalidParameter('Param name must contain only lowercase letters, digits and underscores.')
      const language = requireString(body.language, 'language')
      const category = requireString(body.category, 'category').toUpperCase()
      if (!CATEGORIES.includes(category)) throw invalidParameter(`Param category must be one of {${CATEGORIES.join(', ')}}.`)
      if (waba.templates.some(t => t.name === name && t.language === language)) {
        throw new GraphError(100, { subcode: 2388024, details: `There is already ${language} content for this template. You can create a new template and try again.` })
      }
      const parameterFormat = typeof body.parameter_format === 'string' ? body.parameter_format.toUpperCase() : 'POSITIONAL'
      const template = { id: context.accounts.newTemplateId(), name, language, category, parameterFormat, status: 'PENDING', components: uppercaseEnums(body.components ?? []) as unknown[] }
      waba.templates.push(template)
      startReview(context, waba.account.wabaId, template)
      return { id: template.id, status: 'PENDING', category }
    })

    app.post<{ Params: { id: string } }>('/:id', async function editTemplate (request, reply) {
      const found = context.accounts.template(request.params.id)
      if (!found) throw new GraphError(100, { subcode: 33, details: `Object with ID '${request.params.id}' does not exist` })
      if (accessToken(request) !== found.waba.account.accessToken) throw invalidToken('Invalid OAuth access token - Cannot parse access token')
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const { template } = found
      if (!EDITABLE.includes(template.status)) throw invalidParameter(`A template with status ${template.status} cannot be edited.`)
      const body = isObject(request.body) ? request.body : {}
      if (body.category !== undefined) {
        if (template.status === 'APPROVED') throw invalidParameter('The category of an approved template cannot be edited.')
        template.category = requireString(body.category, 'category').toUpperCase()
      }
      if (body.components !== undefined) template.components = uppercaseEnums(body.components) as unknown[]
      startReview(context, found.waba.account.wabaId, template)
      return { success: true }
    })

    app.delete<{ Params: { id: string }, Querystring: { name?: string, hsm_id?: string } }>('/:id/message_templates', async function deleteTemplate (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const name = requireString(request.query.name, 'name')
      const doomed = waba.templates.filter(t => t.name === name && (request.query.hsm_id === undefined || t.id === request.query.hsm_id))
      if (doomed.length === 0) throw new GraphError(100, { subcode: 2593002, details: `Message template "${name}" not found` })
      if (doomed.some(t => t.status === 'DISABLED')) throw invalidParameter('A disabled template cannot be deleted.')
      waba.templates = waba.templates.filter(t => !doomed.includes(t))
      return { success: true }
    })
  }
}
