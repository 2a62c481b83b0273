import fp from 'fastify-plugin'
import { outsideServiceWindow } from '../src/errors.js'
import type { ComposedMessage } from '../src/messages/compose.js'
import type { Connection } from '../src/store/connections.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Throws 422 outside_service_window for a free-form message the upstream would refuse (CONTRACT.md 11). */
    checkServiceWindow (connection: Connection, phoneNumberId: string, message: ComposedMessage): Promise<void>
  }
}

const DAY_MS = 24 * 60 * 60_000

/**
 * The 24-hour service window, from the inbound messages we store: only a connection registered for a
 * day has seen every inbound message of the last one, so a younger one is never refused.
 * SERVICE_WINDOW_CHECK=off turns it off.
 */
export default fp(async function serviceWindow (app) {
  app.decorate('checkServiceWindow', async function checkServiceWindow (connection: Connection, phoneNumberId: string, message: ComposedMessage) {
    if (app.config.SERVICE_WINDOW_CHECK === 'off' || message.type === 'template') return
    const dayAgo = Date.now() - DAY_MS
    if (connection.createdAt.getTime() > dayAgo) return
    if (await app.serviceWindow.wroteSince(connection.workspaceId, phoneNumberId, message.recipient, new Date(dayAgo))) return
    throw outsideServiceWindow()
  })
}, { name: 'service-window', dependencies: ['db'] })
