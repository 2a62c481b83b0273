import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { clientGone } from '../dispatch/client-gone.js'
import { AppError, invalidRequest, noActiveConnection } from '../errors.js'
import { SendMessageBodySchema, type SendMessageBody } from '../messages/schemas.js'
import { bodyValidationError } from '../messages/validation-errors.js'
import { identifier } from './html.js'
import type { PhoneNumber } from '../store/connections.js'
import type { MessageRecord } from '../store/messages.js'

export type DashboardSend =
  | { ok: true, record: MessageRecord, wamid: string }
  | { ok: false, error: AppError, record?: MessageRecord }

/**
 * A message from the compose form, sent by the send service as POST /api/messages.php sends one
 * (the API's body schema, with the app's own Ajv settings). Only the plan gate and the API key are
 * absent (CONTRACT.md 6): the record names no key.
 */
export async function sendFromDashboard (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>): Promise<DashboardSend> {
  const { workspace } = request.account
  try {
    const active = await app.connections.active(workspace.id)
    if (!active || active.numbers.length === 0) throw noActiveConnection()
    const valid = validated(request, body)
    const sent = await app.send.message({
      body: valid,
      workspaceId: workspace.id,
      apiKeyId: null,
      active,
      sender: senderOf(active.numbers, valid.phone_number_id),
      queued: false,
      arrivedAt: Date.now() - reply.elapsedTime,
      signal: clientGone(reply)
    })
    if (sent.status !== 'sent') throw new Error('unreachable: the dashboard does not queue')
    return { ok: true, record: sent.record, wamid: sent.wamid }
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    // a send that failed after its record was written names it (withRecordId)
    const id = error.extra.id
    return { ok: false, error, record: typeof id === 'string' ? await app.messages.get(id) : undefined }
  }
}

function validated (request: FastifyRequest, body: Record<string, unknown>): SendMessageBody {
  const validate = request.compileValidationSchema(SendMessageBodySchema, 'body')
  if (!validate(body)) throw bodyValidationError((validate.errors ?? []) as FastifySchemaValidationError[])
  return body as SendMessageBody
}

/** As the API resolves phone_number_id: one of the workspace's active numbers, else the first. */
function senderOf (numbers: PhoneNumber[], wanted: string | undefined): PhoneNumber {
  if (wanted === undefined) return numbers[0]
  const number = numbers.find(candidate => candidate.phoneNumberId === wanted)
  if (!number) throw invalidRequest(`phone_number_id ${identifier(wanted)} is not an active number of this workspace`, 'phone_number_id')
  return number
}
