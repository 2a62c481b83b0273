import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { unauthorized } from '../src/errors.js'
import type { VerifiedKey } from '../src/store/api-keys.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** set by authenticate on routes with `config.auth: 'apiKey'` */
    apiKey: VerifiedKey
  }
  interface FastifyContextConfig {
    /** 'apiKey': the route requires `Authorization: Bearer <API key>` */
    auth?: 'apiKey'
  }
}

/**
 * `Authorization: Bearer <key>` → the key and its workspace's plan. The key's row comes from the read
 * cache (src/store/read-cache.ts): a revocation counts from the next request in this process, and
 * within a second in the others (CONTRACT.md 2).
 */
export default fp(async function auth (app) {
  app.decorateRequest('apiKey')

  async function authenticate (request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const secret = bearerToken(request.headers.authorization)
    const key = secret === undefined ? undefined : await app.keys.verify(secret)
    if (key) {
      request.apiKey = key
      return
    }
    await app.limitUnauthenticated(request, reply)
    reply.header('www-authenticate', 'Bearer')
    throw unauthorized(secret === undefined ? 'API key missing: send Authorization: Bearer <API_KEY>' : 'API key invalid or revoked')
  }

  app.addHook('onRoute', function requireApiKey (route: RouteOptions) {
    if (route.config?.auth === 'apiKey') route.onRequest = [route.onRequest ?? []].flat().concat(authenticate)
  })
}, { name: 'auth', dependencies: ['db', 'rate-limit'] })

function bearerToken (header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1]
}
