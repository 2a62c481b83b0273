import type { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import fp from 'fastify-plugin'

// Enough for any client to read its answer, too little to make the connection worth holding.
const LINGER_MAX_BYTES = 16 * 1024 * 1024
const LINGER_MAX_MS = 5000

/**
 * An answer given before the request's body has arrived (a 413 on its announced length, a 401 before
 * a webhook's body, a multipart refused at a part's head) is not followed by a close while body bytes
 * are unread: the kernel would reset the connection, and a client still writing, or not yet reading,
 * would lose the answer with it. As nginx's lingering close does, the rest is read and dropped (never
 * held) up to LINGER_MAX_BYTES or LINGER_MAX_MS; then the connection carries on (or closes, when the
 * client asked so), or past a bound is closed at once.
 */
export default fp(async function lingeringClose (app) {
  app.addHook('onSend', async function dropTheRest (request, reply, payload) {
    // a server stopping closes its connections as it always does; an injected request has none
    if (request.raw.complete || request.raw.destroyed || !app.server.listening || !(request.raw.socket instanceof Socket)) return payload
    // what the client asked for, before this answer's header decides it
    const clientKeepsAlive = reply.raw.shouldKeepAlive
    // Fastify answers a refused body with `Connection: close`, on which Node would close the socket at once
    reply.header('connection', 'keep-alive')
    drop(request.raw, reply.raw, clientKeepsAlive)
    return payload
  })
}, { name: 'lingering-close' })

function drop (raw: IncomingMessage, response: ServerResponse, keepAlive: boolean): void {
  const socket = raw.socket
  let dropped = 0
  const timer = setTimeout(() => socket.destroy(), LINGER_MAX_MS).unref()
  raw.once('close', () => clearTimeout(timer))
  raw.once('end', () => {
    clearTimeout(timer)
    if (keepAlive) return
    if (response.writableFinished) socket.end()
    else response.once('finish', () => socket.end())
  })
  // a multipart reader still piped would stop the flow once its parts are no longer read
  raw.unpipe()
  raw.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > LINGER_MAX_BYTES) socket.destroy()
  })
  raw.resume()
}
