import type { FastifyRequest } from 'fastify'
import type { GraphNode, WabaState } from './accounts.js'
import type { EmulatorContext } from './context.js'
import { invalidToken, unknownObject } from './graph-error.js'
import type { EmulatedNumber } from './types.js'

type IdRequest = FastifyRequest<{ Params: { id: string } }>

export function authorizeNumber (context: EmulatorContext, request: IdRequest): { waba: WabaState, number: EmulatedNumber } {
  const node = authorize(context, request)
  if (!node.number) throw unknownObject(request.params.id, request.method)
  return { waba: node.waba, number: node.number }
}

export function authorizeWaba (context: EmulatorContext, request: IdRequest): WabaState {
  const node = authorize(context, request)
  if (node.number) throw unknownObject(request.params.id, request.method)
  return node.waba
}

/** Graph checks the token before the object; a token only opens the WABA it belongs to. */
export function authorize (context: EmulatorContext, request: IdRequest): GraphNode {
  const token = accessToken(request)
  if (!token || !context.accounts.knowsToken(token)) throw invalidToken('Invalid OAuth access token - Cannot parse access token')
  const node = context.accounts.node(request.params.id)
  if (!node) throw unknownObject(request.params.id, request.method)
  if (node.waba.account.accessToken !== token) {
    throw invalidToken('Error validating access token: The session is invalid because the user logged out or the token does not grant access to this WhatsApp Business Account.')
  }
  return node
}

/** The bearer token, or `?access_token=` as Graph also takes it. */
export function accessToken (request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  if (match) return match[1]
  const query = request.query as Record<string, unknown> | undefined
  return typeof query?.access_token === 'string' && query.access_token !== '' ? query.access_token : undefined
}
