import type { FastifyPluginAsync } from 'fastify'
import { sameSecret } from '../src/crypto/constant-time.js'
import type { FastifyRequest } from 'fastify'
import { databaseUnavailable, forbidden, invalidRequest, payloadTooLarge, unauthorized } from '../src/errors.js'
import { faultCode } from '../src/faults/classify.js'
import { validSignature, wellFormedSignature } from '../src/webhooks/signature.js'

/** The upstream's callback (CONTRACT.md section 3). Not wrapped in fastify-plugin: its raw-body parser stays here. */
const webhooks: FastifyPluginAsync = async function (app) {
  const bodyLimit = app.config.WEBHOOK_BODY_LIMIT_BYTES
  // The signature covers the exact bytes: keep them, parse only after the check.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body))

  /**
   * Before a byte of the body is read: no secret, no signature or a declared length over the limit
   * is answered at once, and the rest dropped as it comes (plugins/lingering-close.ts), so an
   * unsigned or oversized body is never buffered (a body without a declared length stops at the
   * limit as it streams in).
   */
  async function refuseBeforeReading (request: FastifyRequest) {
    const refusal = !app.config.APP_SECRET
      ? unauthorized('Webhook refused: APP_SECRET is not configured, so no signature can be verified')
      : !wellFormedSignature(request.headers['x-hub-signature-256'])
          ? unauthorized('Missing or invalid X-Hub-Signature-256')
          : Number(request.headers['content-length'] ?? 0) > bodyLimit ? payloadTooLarge(bodyLimit, 'WEBHOOK_BODY_LIMIT_BYTES') : undefined
    if (refusal) throw refusal
  }

  app.get('/webhooks/whatsapp', async function verifySubscription (request, reply) {
    const query = request.query as Record<string, unknown>
    const token = query['hub.verify_token']
    const challenge = query['hub.challenge']
    if (query['hub.mode'] !== 'subscribe' || typeof token !== 'string' || !sameSecret(token, app.webhookVerifyToken) || typeof challenge !== 'string') {
      throw forbidden('Webhook verification failed')
    }
    return reply.type('text/plain; charset=utf-8').send(challenge)
  })

  app.post('/webhooks/whatsapp', { bodyLimit, onRequest: refuseBeforeReading }, async function receiveWebhook (request) {
    const secret = app.config.APP_SECRET
    if (!secret) throw unauthorized('Webhook refused: APP_SECRET is not configured, so no signature can be verified')
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    if (!validSignature(raw, request.headers['x-hub-signature-256'], secret)) throw unauthorized('Missing or invalid X-Hub-Signature-256')
    if (!isJsonObject(raw)) throw invalidRequest('The webhook body is not a JSON object')
    // Stored, then answered: the inbox applies it (src/webhooks/inbox.ts). Only a database that cannot store it gives 503.
    const jobId = await app.inbox.store(raw).catch((error: unknown) => {
      request.log.warn({ code: faultCode(error) }, 'webhook delivery not stored')
      throw databaseUnavailable('The delivery could not be stored; deliver it again later')
    })
    request.log.debug({ jobId }, 'webhook delivery stored')
    return { ok: true }
  })
}

function isJsonObject (raw: Buffer): boolean {
  try {
    const body: unknown = JSON.parse(raw.toString('utf8'))
    return typeof body === 'object' && body !== null && !Array.isArray(body)
  } catch {
    return false
  }
}

export default webhooks
