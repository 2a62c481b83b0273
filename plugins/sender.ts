import type { FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { maySendFrom } from '../src/access/scopes.js'
import { invalidRequest, noActiveConnection, numberNotAllowed } from '../src/errors.js'
import type { ActiveConnection, PhoneNumber } from '../src/store/connections.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** the key's workspace's active connection, on routes with `config.sender` */
    activeConnection: ActiveConnection
    /** the number the message goes from: the body's phone_number_id, or the workspace's first number */
    sender: PhoneNumber
  }
  interface FastifyContextConfig {
    /** the route sends from the key's workspace's connected numbers */
    sender?: boolean
  }
}

/**
 * 409 without an active connection: checked before the body is read, on the connection the read
 * cache holds (a connect or disconnect drops it). The sending number needs the body: a key limited
 * to some numbers is refused (403) as soon as the body is parsed, before it is validated (422); the
 * number itself is resolved once the body has passed validation.
 */
export default fp(async function sender (app) {
  app.decorateRequest('activeConnection')
  app.decorateRequest('sender')

  async function requireConnection (request: FastifyRequest): Promise<void> {
    const active = await app.connections.active(request.apiKey.workspaceId)
    if (!active || active.numbers.length === 0) throw noActiveConnection()
    request.activeConnection = active
  }

  async function requireAllowedNumber (request: FastifyRequest): Promise<void> {
    const allowed = request.apiKey.phoneNumberIds
    // an upload reads its phone_number_id from the multipart stream and checks it there (src/media/upload-request.ts)
    if (allowed === null || request.routeOptions.config.mediaFile === 'stream') return
    const given = (request.body as { phone_number_id?: unknown } | undefined)?.phone_number_id
    // a malformed phone_number_id is the body's 422; an omitted one means the workspace's first number
    const wanted = given === undefined ? request.activeConnection.numbers[0].phoneNumberId : given
    if (typeof wanted === 'string' && !maySendFrom(request.apiKey, wanted)) throw numberNotAllowed(wanted, allowed)
  }

  async function resolveSender (request: FastifyRequest): Promise<void> {
    const { numbers } = request.activeConnection
    // a media upload has no parsed body: it reads its number from the multipart stream (src/media/upload-request.ts)
    const wanted = (request.body as { phone_number_id?: string } | undefined)?.phone_number_id
    if (wanted === undefined) {
      request.sender = numbers[0]
      return
    }
    const number = numbers.find(candidate => candidate.phoneNumberId === wanted)
    if (!number) {
      const active = numbers.map(candidate => candidate.phoneNumberId).join(', ')
      throw invalidRequest(`phone_number_id ${wanted} is not an active number of this workspace (active: ${active})`, 'phone_number_id')
    }
    request.sender = number
  }

  app.addHook('onRoute', function sendFromWorkspace (route: RouteOptions) {
    if (!route.config?.sender) return
    route.preParsing = [route.preParsing ?? []].flat().concat(requireConnection)
    route.preValidation = [route.preValidation ?? []].flat().concat(requireAllowedNumber)
    route.preHandler = [route.preHandler ?? []].flat().concat(resolveSender)
  })
}, { name: 'sender', dependencies: ['db', 'auth', 'plan'] })
