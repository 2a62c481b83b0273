import fp from 'fastify-plugin'
import { createDecide, type Decide } from '../src/audience/decide.js'
import { syncTemplates } from '../src/connections/connect.js'
import { refreshNumbers } from '../src/connections/refresh.js'
import type { Connection } from '../src/store/connections.js'
import type { Template } from '../src/store/templates.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The audience rules (CONTRACT.md 14): messaging limit, opt-outs, cooldowns, template status. */
    audience: {
      /** send, hold (reason, until) or refuse (error): the one question every sending path asks */
      decide: Decide
      /** The workspace's templates of a name; an unknown name re-syncs the catalog first (at most once a minute per WABA). */
      templatesNamed (connection: Connection, name: string): Promise<Template[]>
    }
  }
}

const RESYNC_EVERY_MS = 60_000

/** The audience rules, and the hourly re-read of every number's tier (and quality, throughput). */
export default fp(async function audience (app) {
  const decide = createDecide({
    templates: app.templates,
    // an erased person's opt-out is found by the HMAC of the number (CONTRACT.md 17)
    suppressions: { blocked: async (workspaceId, recipient) => await app.suppressions.blocked(workspaceId, recipient, app.privacy.digest(workspaceId, recipient)) },
    messagingLimit: app.messagingLimit,
    serviceWindow: app.serviceWindow,
    messagingLimitCheck: app.config.MESSAGING_LIMIT_CHECK === 'on'
  })

  async function templatesNamed (connection: Connection, name: string): Promise<Template[]> {
    const known = await app.templates.byName(connection.workspaceId, name)
    if (known.length > 0 || !await app.templateResyncs.claim(connection.wabaId, RESYNC_EVERY_MS)) return known
    try {
      await syncTemplates(app.connectDeps, connection)
    } catch (error) {
      app.log.warn({ wabaId: connection.wabaId, err: (error as Error).message }, 'template re-sync for an unknown name failed')
      return known
    }
    return await app.templates.byName(connection.workspaceId, name)
  }
  app.decorate('audience', { decide, templatesNamed })

  const interval = app.config.NUMBER_REFRESH_INTERVAL_MS
  if (interval === 0) return
  const timer = setInterval(() => {
    void (async () => {
      for (const connection of await app.connections.allActive()) await refreshNumbers(app.connectDeps, connection.wabaId, async reads => await app.qualityGuard.numbersRead(reads))
      await app.messagingLimit.forgetOld()
    })().catch(error => app.log.warn({ err: (error as Error).message }, 'hourly number refresh failed'))
  }, interval)
  timer.unref()
  app.addHook('onClose', async () => clearInterval(timer))
}, { name: 'audience', dependencies: ['db', 'connections', 'privacy'] })
