import type { FastifyPluginAsync } from 'fastify'
import { sameSecret } from '../src/crypto/constant-time.js'
import { forbidden } from '../src/errors.js'

/** The upstream's callback (CONTRACT.md section 3). */
const webhooks: FastifyPluginAsync = async function (app) {
  app.get('/webhooks/whatsapp', async function verifySubscription (request, reply) {
    const query = request.query as Record<string, unknown>
    const challenge = query['hub.challenge']
    if (query['hub.mode'] !== 'subscribe' || typeof query['hub.verify_token'] !== 'string' || !sameSecret(query['hub.verify_token'], app.webhookVerifyToken) || typeof challenge !== 'string') {
      throw forbidden('Webhook verification failed')
    }
    return reply.type('text/plain; charset=utf-8').send(challenge)
  })
}

export default webhooks
