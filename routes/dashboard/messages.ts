import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { MESSAGE_STATUSES, type MessageStatus } from '../../src/resources/message-status.js'
import { identifier } from '../../src/dashboard/html.js'
import { eventRow, messageRow, pricingText } from '../../src/dashboard/message-rows.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { messageContent } from '../../src/dashboard/views/message.js'
import { messagesContent } from '../../src/dashboard/views/messages.js'
import { notFound } from '../../src/errors.js'
import { messageHistory } from '../../src/resources/history.js'

const PAGE_SIZE = 50

const ListQuerySchema = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal(''), ...MESSAGE_STATUSES.map(status => Type.Literal(status))])),
  q: Type.Optional(Type.String({ maxLength: 200 })),
  before: Type.Optional(Type.String({ maxLength: 100 }))
})
const MessageParamsSchema = Type.Object({ id: Type.String({ maxLength: 100 }) })

/** The message log of the signed-in workspace, live: pages and the JSON their script polls. */
const messages: FastifyPluginAsyncTypebox = async function (app) {
  async function rows (request: FastifyRequest, query: { status?: string, q?: string, before?: string }) {
    const workspaceId = request.account.workspace.id
    const [records, keys] = await Promise.all([
      app.messageSearch.list(workspaceId, { status: (query.status || undefined) as MessageStatus | undefined, search: query.q?.trim() || undefined, before: query.before || undefined, limit: PAGE_SIZE }),
      app.keys.list(workspaceId)
    ])
    const names = new Map(keys.map(key => [key.id, key.name]))
    return records.map(record => messageRow(record, names))
  }

  async function findMessage (request: FastifyRequest, id: string) {
    return await app.messageSearch.get(request.account.workspace.id, id) ?? fail(notFound('No such message in this workspace'))
  }

  app.get('/messages', { config: { dashboard: 'page' }, schema: { querystring: ListQuerySchema } }, async function listMessages (request, reply) {
    const list = await rows(request, request.query)
    const content = messagesContent({
      rows: list,
      status: request.query.status ?? '',
      search: request.query.q ?? '',
      olderThan: list.length === PAGE_SIZE ? list[list.length - 1].id : undefined,
      live: !request.query.before
    })
    return sendHtml(reply, page(request, { title: 'Messages', active: 'messages' }, content))
  })

  app.get('/messages.json', { config: { dashboard: 'json' }, schema: { querystring: ListQuerySchema } }, async function liveMessages (request) {
    return { ok: true, messages: await rows(request, request.query) }
  })

  /** The message and its history exactly as the API tells it (GET /api/messages.php?id=), as display strings. */
  async function withHistory (request: FastifyRequest, id: string) {
    const record = await findMessage(request, id)
    const events = await app.statusEvents.history(record.id)
    return { record, history: messageHistory(record, events).map(eventRow) }
  }

  app.get('/messages/:id', { config: { dashboard: 'page' }, schema: { params: MessageParamsSchema } }, async function showMessage (request, reply) {
    const { record, history } = await withHistory(request, request.params.id)
    const [keys, active] = await Promise.all([app.keys.list(record.workspaceId), app.connections.active(record.workspaceId)])
    const row = messageRow(record, new Map(keys.map(key => [key.id, key.name])))
    const number = active?.numbers.find(candidate => candidate.phoneNumberId === record.phoneNumberId)
    const from = number ? `${identifier(number.displayPhoneNumber)} (${record.phoneNumberId})` : record.phoneNumberId
    return sendHtml(reply, page(request, { title: 'Message', active: 'messages' }, messageContent({ record, row, history, from, retentionDays: request.account.workspace.retentionDays })))
  })

  app.get('/messages/:id/status', { config: { dashboard: 'json' }, schema: { params: MessageParamsSchema } }, async function liveMessage (request) {
    const { record, history } = await withHistory(request, request.params.id)
    const row = messageRow(record, new Map())
    return {
      ok: true,
      message: { ...row, wamid: row.wamid || '—', attempts: String(record.attempts), pricing: pricingText(record) },
      history
    }
  })
}

function fail (error: Error): never {
  throw error
}

export default messages
