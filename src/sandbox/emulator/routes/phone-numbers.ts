import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { accessToken, authorize, authorizeWaba } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { selectFields } from '../fields.js'
import { NUMBER_LIST_FIELDS, NUMBER_NODE_FIELDS, numberNode, TEMPLATE_FIELDS, templateNode, WABA_FIELDS, wabaNode } from '../nodes.js'
import { pageUrlFor, paginate, type PageQuery } from '../paging.js'
import { mediaNode } from './media.js'

type Query = PageQuery & { fields?: string }

export function phoneNumberRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function phoneNumbers (app) {
    app.get<{ Params: { id: string }, Querystring: Query }>('/:id/phone_numbers', async function listPhoneNumbers (request, reply) {
      const waba = authorizeWaba(context, request)
      if (await applyFaults(context.faults, request, reply, {})) return reply
      const numbers = waba.account.phoneNumbers.map(function listed (number) {
        return selectFields(numberNode(number, waba), request.query.fields, NUMBER_LIST_FIELDS, 'WhatsAppBusinessPhoneNumber')
      })
      return paginate(numbers, request.query, pageUrlFor(originOf(request), request.url))
    })

    app.get<{ Params: { id: string }, Querystring: Query }>('/:id', async function getNode (request, reply) {
      if (context.media.get(request.params.id)) {
        if (await applyFaults(context.faults, request, reply, {})) return reply
        return mediaNode(context, request)
      }
      const template = context.accounts.template(request.params.id)
      if (template && accessToken(request) === template.waba.account.accessToken) {
        if (await applyFaults(context.faults, request, reply, {})) return reply
        return selectFields(templateNode(template.template), request.query.fields, TEMPLATE_FIELDS, 'WhatsAppBusinessHSM')
      }
      const { waba, number } = authorize(context, request)
      if (await applyFaults(context.faults, request, reply, { phoneNumberId: number?.id })) return reply
      if (!number) return selectFields(wabaNode(waba), request.query.fields, WABA_FIELDS, 'WhatsAppBusinessAccount')
      return selectFields(numberNode(number, waba), request.query.fields, NUMBER_NODE_FIELDS, 'WhatsAppBusinessPhoneNumber')
    })
  }
}

export function originOf (request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`
}
