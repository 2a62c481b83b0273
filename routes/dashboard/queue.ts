import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

/** POST /dashboard/queue/cancel: the workspace's queued sends end failed (`cancelled`), unsent. */
const queue: FastifyPluginAsyncTypebox = async function (app) {
  app.post('/queue/cancel', { config: { dashboard: 'page' } }, async function cancelQueued (request, reply) {
    const count = await app.queuedSends.cancelAll(request.account.workspace.id)
    request.log.info({ workspaceId: request.account.workspace.id, count }, 'queued messages cancelled')
    return reply.redirect('/dashboard?done=queue-cancelled', 303)
  })
}

export default queue
