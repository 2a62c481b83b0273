import fp from 'fastify-plugin'

/**
 * Node closes, at `server.close()`, the keep-alive connections idle at that moment; a response still
 * streaming then (a download served from its spool, say) leaves its connection open once it ends, for
 * the whole keep-alive timeout (72 s in Fastify), and the close waits for it. So once the app is
 * closing, every response that finishes closes its connection, and the close ends with the last one.
 */
export default fp(async function closingConnections (app) {
  let closing = false
  app.addHook('preClose', async function closeConnectionsAsResponsesEnd () { closing = true })
  app.addHook('onResponse', async function closeIfClosing (request) {
    if (closing) request.raw.socket?.end()
  })
}, { name: 'closing-connections' })
