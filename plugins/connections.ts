import fp from 'fastify-plugin'
import { registerWebhook, type ConnectDeps } from '../src/connections/connect.js'
import { resolveVerifyToken, webhookCallbackUrl } from '../src/connections/verify-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhookVerifyToken: string
    /** everything connectWorkspace and its siblings need, from this app */
    connectDeps: ConnectDeps
  }
}

// Registration is retried until it succeeds: often the server was not listening yet when the CLI connected.
const RETRY_INTERVAL_MS = 30_000

/** The webhook verify token, and the retry of webhook registrations that failed. */
export default fp(async function connections (app) {
  const verifyToken = await resolveVerifyToken(app.config, app.database.db)
  app.decorate('webhookVerifyToken', verifyToken)
  app.decorate('connectDeps', { stores: app, cipher: app.cipher, upstream: app.upstream, callbackUrl: webhookCallbackUrl(app.config), verifyToken })

  let timer: NodeJS.Timeout | undefined
  async function retryRegistrations (): Promise<void> {
    for (const connection of await app.connections.unregistered()) {
      const error = await registerWebhook(app.connectDeps, connection)
      if (error) app.log.warn({ connectionId: connection.id, wabaId: connection.wabaId, error }, 'webhook registration failed; will retry')
      else app.log.info({ connectionId: connection.id, wabaId: connection.wabaId }, 'webhook registered')
    }
  }
  function schedule (delayMs: number): void {
    timer = setTimeout(() => {
      retryRegistrations().catch(error => app.log.error({ err: error }, 'webhook registration retry failed'))
        .finally(() => schedule(RETRY_INTERVAL_MS))
    }, delayMs)
    timer.unref()
  }
  app.addHook('onListen', async () => schedule(0))
  app.addHook('onClose', async () => clearTimeout(timer))
}, { name: 'connections', dependencies: ['db', 'upstream'] })
