import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifySchemaValidationError } from 'fastify/types/schema.js'
import { answerVerdict, sendOfMessage } from '../audience/decide.js'
import { slotOf, untilDispatch } from '../audience/slots.js'
import { clientGone } from '../dispatch/client-gone.js'
import { AppError, invalidRequest, noActiveConnection } from '../errors.js'
import { composeMessage } from '../messages/compose.js'
import { pendingMessage } from '../messages/payload.js'
import { SendMessageBodySchema, type SendMessageBody } from '../messages/schemas.js'
import { bodyValidationError } from '../messages/validation-errors.js'
import { identifier } from './html.js'
import type { PhoneNumber } from '../store/connections.js'
import type { MessageRecord, PendingMessage } from '../store/messages.js'
import type { Workspace } from '../store/workspaces.js'
import type { ComposedMessage } from '../messages/compose.js'

export type DashboardSend =
  | { ok: true, record: MessageRecord, wamid: string }
  | { ok: false, error: AppError, record?: MessageRecord }

/**
 * A message from the compose form, sent the way POST /api/messages.php sends one: the API's body
 * schema (with the app's own Ajv settings), composeMessage, a log record before anything goes
 * upstream, and app.dispatch with the same deadline and client-gone signal. Only the plan gate is
 * absent (CONTRACT.md 6).
 */
export async function sendFromDashboard (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>): Promise<DashboardSend> {
  const { workspace } = request.account
  let record: MessageRecord | undefined
  try {
    const active = await app.connections.active(workspace.id)
    if (!active || active.numbers.length === 0) throw noActiveConnection()
    const valid = validated(request, body)
      const composed = await composeMessage(valid, name => app.audience.templatesNamed(active.connection, name))
      const message = { ...composed, recipient: await app.userIds.current(workspace.id, composed.recipient) }
    const sender = senderOf(active.numbers, valid.phone_number_id)
    await app.checkServiceWindow(active.connection, sender.phoneNumberId, message)
    const verdict = await app.audience.decide(sendOfMessage(message, workspace.id, active, sender.phoneNumberId), 'send')
    answerVerdict(verdict, 'send')
    const slot = slotOf(verdict)
    record = await untilDispatch(app.audience.giveBack, slot, async () => await app.messages.createPending({ ...dashboardRecord(message, workspace, sender), dispatcherId: app.dispatcherId }))
    if (!record) throw new Error('unreachable: createPending returned nothing')
    const { wamid } = await app.dispatch(record, {
      slot,
      connection: active.connection,
      throughputLevel: sender.throughputLevel,
      deadline: Date.now() - reply.elapsedTime + app.config.DISPATCH_DEADLINE_MS,
      signal: clientGone(reply)
    })
    return { ok: true, record, wamid }
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error, record: record && await app.messages.get(record.id) }
    throw error
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

/** The API's log record, with no API key behind it: the dashboard sent it. */
function dashboardRecord (message: ComposedMessage, workspace: Workspace, sender: PhoneNumber): PendingMessage {
  return { ...pendingMessage(message, { id: '', workspaceId: workspace.id }, sender), apiKeyId: null }
}
