import type { FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { idempotencyInProgress, idempotencyMismatch } from '../src/errors.js'
import { answerFromRecord } from '../src/idempotency/answer.js'
import { KeyHeld } from '../src/idempotency/held.js'
import { isOpen } from '../src/resources/message-status.js'
import { idempotencyKeyOf } from '../src/idempotency/header.js'
import type { StoredAnswer } from '../src/store/idempotency-keys.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** the request's Idempotency-Key, on routes with `config.idempotency`; `messageId` once it created its record */
    idempotency?: { key: string, messageId?: string, replayed?: boolean }
  }
  interface FastifyContextConfig {
    /** the route honours `Idempotency-Key` (CONTRACT.md 8) */
    idempotency?: boolean
  }
}

// what a replay repeats besides status and body; rate-limit headers are the new request's own
const KEPT_HEADERS = ['content-type', 'retry-after', 'location', 'preference-applied']

/** Idempotency-Key on routes with `config.idempotency`: keys live in the database, so every process shares them. */
export default fp(async function idempotency (app) {
  const ttlMs = app.config.IDEMPOTENCY_TTL_MS
  const keys = app.idempotencyKeys

  async function readKey (request: FastifyRequest): Promise<void> {
    const key = idempotencyKeyOf(request.headers['idempotency-key'])
    if (key !== undefined) request.idempotency = { key }
  }

  async function keepAnswer (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const state = request.idempotency
    if (!state?.messageId || state.replayed || typeof payload !== 'string') return payload
    // A 200 is its record's id and wamid, which never change: answerFromRecord rebuilds it byte for
    // byte, so keeping it would only add a commit to every keyed send. A one-call send's 200 also
    // names the media it uploaded, which the record does not keep: that one is kept.
    if (reply.statusCode === 200 && !payload.includes('"media_id":')) return payload
    const held = { workspaceId: request.apiKey.workspaceId, key: state.key, messageId: state.messageId }
    try {
      // queue_full created nothing the client must keep (CONTRACT.md 8): the key is free again
      if (reply.statusCode === 503 && payload.includes('"code":"queue_full"')) await keys.release(held)
      else await keys.saveAnswer(held, { status: reply.statusCode, headers: keptHeaders(reply), body: payload })
    } catch (error) {
      // a repeat then answers from the record itself
      request.log.warn({ err: error, messageId: state.messageId }, 'could not store the answer of an idempotency key')
    }
    return payload
  }

  /**
   * The handler's send found the request's key held by another record (src/idempotency/held.ts):
   * the request is answered from the key. Found out by the statement that takes the key with the
   * record (or, before a one-call send's upload, by a look-up), so a keyed send pays no look-up.
   */
  function answeringHeldKeys (handler: RouteHandlerMethod): RouteHandlerMethod {
    return async function answerFromHeldKey (request, reply) {
      try {
        return await handler.call(this, request, reply)
      } catch (error) {
        if (!(error instanceof KeyHeld) || !request.idempotency) throw error
        await replay(request, reply, request.idempotency, error.print)
        return reply
      }
    }
  }

  app.addHook('onRoute', function honourIdempotencyKey (route: RouteOptions) {
    if (!route.config?.idempotency) return
    route.preValidation = [readKey, ...[route.preValidation ?? []].flat()]
    route.handler = answeringHeldKeys(route.handler)
    route.onSend = [...[route.onSend ?? []].flat(), keepAnswer]
  })

  async function replay (request: FastifyRequest, reply: FastifyReply, state: NonNullable<FastifyRequest['idempotency']>, print: string): Promise<void> {
    const answer = await heldAnswer(request.apiKey.workspaceId, state.key, print)
    state.replayed = true
    await reply.code(answer.status).headers(answer.headers).header('idempotent-replayed', 'true').send(answer.body)
  }

  async function heldAnswer (workspaceId: string, key: string, print: string): Promise<StoredAnswer> {
    const held = await keys.held(workspaceId, key)
    // expired in the instant since it was found held: a retry takes it afresh
    if (!held) throw idempotencyInProgress()
    if (held.fingerprint !== print) throw idempotencyMismatch()
    if (held.answer) return held.answer
    // The first request has not answered yet, or died first. A dead process's record is marked
    // interrupted once its lease runs out (src/dispatch/lease.ts), so a key is not 409 for ever.
    if (isOpen(held.record.status)) throw idempotencyInProgress()
    const answer = answerFromRecord(held.record)
    if (answer.status === 200) return answer
    // a failure can still turn out sent (a late webhook): the first answer derived is the one kept
    await keys.saveAnswer({ workspaceId, key, messageId: held.record.id }, answer)
    return (await keys.held(workspaceId, key))?.answer ?? answer
  }

  const sweeper = setInterval(function sweepExpiredKeys () {
    keys.sweep().catch((error: unknown) => { app.log.warn({ err: error }, 'could not sweep expired idempotency keys') })
  }, Math.min(ttlMs, 60_000)).unref()
  app.addHook('onClose', async () => { clearInterval(sweeper) })
}, { name: 'idempotency', dependencies: ['db', 'auth'] })

function keptHeaders (reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = String(value)
  }
  return headers
}
