import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { inboundParts } from '../../src/conversations/replies.js'
import { messageBodyOf } from '../../src/dashboard/compose-form.js'
import { page, sendHtml } from '../../src/dashboard/page.js'
import { sendFromDashboard } from '../../src/dashboard/send.js'
import { conversationHref, conversationsContent, threadContent } from '../../src/dashboard/views/conversations.js'
import { notFound } from '../../src/errors.js'
import { actors, audit } from '../../src/access/audit.js'
import { READ_RECEIPTS } from '../../db/schema.js'

const ParamsSchema = Type.Object({ number: Type.String({ maxLength: 64 }), person: Type.String({ maxLength: 160 }) })
const ReplyFormSchema = Type.Object({
  _csrf: Type.Optional(Type.String()),
  body: Type.Optional(Type.String({ maxLength: 8192 })),
  template: Type.Optional(Type.String({ maxLength: 600 })),
  variables: Type.Optional(Type.String({ maxLength: 8192 }))
})
const SettingsFormSchema = Type.Object({ _csrf: Type.Optional(Type.String()), read_receipts: Type.Union(READ_RECEIPTS.map(policy => Type.Literal(policy))) })
const THREAD_PAGE = 50

/** /dashboard/conversations (CONTRACT.md 19): the conversations, a thread with its service window, read marks and a reply box. */
const conversations: FastifyPluginAsyncTypebox = async function (app) {
  const numbersOf = async (workspaceId: string) => new Map(((await app.connections.active(workspaceId))?.numbers ?? []).map(number => [number.phoneNumberId, number.displayPhoneNumber]))
  const conversationOf = async (request: FastifyRequest & { params: { number: string, person: string } }) =>
    await app.conversations.one(request.account.workspace.id, request.params.number, request.params.person) ?? (() => { throw notFound('No such conversation in your workspace') })()

  app.get('/conversations', { config: { dashboard: 'page' } }, async function listConversations (request, reply) {
    const workspaceId = request.account.workspace.id
    const [{ rows }, numbers] = await Promise.all([app.conversations.list(workspaceId, { limit: 100 }), numbersOf(workspaceId)])
    const content = conversationsContent({ conversations: rows, numbers, now: new Date(), readReceipts: request.account.workspace.readReceipts, csrfToken: request.account.session.csrfToken })
    return sendHtml(reply, page(request, { title: 'Conversations', active: 'conversations' }, content))
  })

  // the workspace's read-receipt policy (CONTRACT.md 19), audited as the CLI's change is
  app.post('/conversations/settings', { config: { dashboard: 'page' }, schema: { body: SettingsFormSchema } }, async function saveReadReceipts (request, reply) {
    await app.workspaces.setReadReceipts(request.account.workspace.id, request.body.read_receipts,
      audit.of(actors.account(request), 'workspace.settings_changed', changed => ({ workspaceId: changed.id, target: { kind: 'workspace', id: changed.id } })))
    return await reply.redirect('/dashboard/conversations', 303)
  })

  app.get('/conversations/:number/:person', { config: { dashboard: 'page' }, schema: { params: ParamsSchema } }, async function showConversation (request, reply) {
    const workspaceId = request.account.workspace.id
    const conversation = await conversationOf(request)
    const [{ items }, numbers, templates] = await Promise.all([
      app.conversations.thread(workspaceId, conversation.person, { phoneNumberId: conversation.phoneNumberId, limit: THREAD_PAGE }),
      numbersOf(workspaceId),
      app.templates.list(workspaceId)
    ])
    const inbound = items.flatMap(item => item.direction === 'inbound' ? [item.row] : [])
    const [payloads, parts] = await Promise.all([
      app.conversations.payloadsOf(workspaceId, items.flatMap(item => item.direction === 'outbound' ? [item.row.id] : [])),
      inboundParts(app.database.db, workspaceId, inbound)
    ])
    const replies = new Map([...parts].map(([id, part]) => [id, part.replyTo]))
    const content = threadContent({ conversation, number: numbers.get(conversation.phoneNumberId) ?? conversation.phoneNumberId, items, payloads, replies, templates, csrfToken: request.account.session.csrfToken, now: new Date() })
    return sendHtml(reply, page(request, { title: 'Conversation', active: 'conversations' }, content))
  })

  // the person's latest unread message, read upstream: the earlier ones with it
  app.post('/conversations/:number/:person/read', { config: { dashboard: 'page' }, schema: { params: ParamsSchema } }, async function markConversationRead (request, reply) {
    const conversation = await conversationOf(request)
    const latest = await app.inbound.latestUnread(conversation.workspaceId, conversation.phoneNumberId, conversation.person)
    if (latest) await app.readMarks.mark(latest, { typing: false })
    return await reply.redirect(conversationHref(conversation.phoneNumberId, conversation.person), 303)
  })

  // CONTRACT.md 17: the person erased, as POST /api/erasures.php does; the conversation goes with them
  app.post('/conversations/:number/:person/erase', { config: { dashboard: 'page' }, schema: { params: ParamsSchema } }, async function eraseConversationPerson (request, reply) {
    const conversation = await conversationOf(request)
    await app.privacy.requestErasure({ workspaceId: conversation.workspaceId, recipient: conversation.person, who: actors.account(request) })
    return await reply.redirect('/dashboard/privacy?done=erasure-requested', 303)
  })

  app.post('/conversations/:number/:person/reply', { config: { dashboard: 'page' }, schema: { params: ParamsSchema, body: ReplyFormSchema } }, async function replyInConversation (request, reply) {
    const conversation = await conversationOf(request)
    const form = request.body
    const type = form.template ? 'template' : 'text'
    const outcome = await sendFromDashboard(app, request, reply, messageBodyOf({ ...form, to: conversation.person, type, phone_number_id: conversation.phoneNumberId }))
    if (!outcome.ok) throw outcome.error
    return await reply.redirect(conversationHref(conversation.phoneNumberId, conversation.person), 303)
  })
}

export default conversations
