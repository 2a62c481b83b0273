import type { FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { missingScope, type Scope } from '../src/access/scopes.js'
import { insufficientScope } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** what the key must be allowed to do (CONTRACT.md 16); required on every route with `auth: 'apiKey'` */
    scopes?: readonly Scope[]
  }
}

/**
 * 403 `insufficient_scope` unless the key holds every scope of the route: after the plan, before the
 * connection and the body. The scopes come with the key's cached row: no query. A route that takes
 * API keys without naming its scopes stops the app at start-up, so no route can forget them.
 */
export default fp(async function scopes (app) {
  app.addHook('onRoute', function gateScopes (route: RouteOptions) {
    const required = route.config?.scopes
    if (route.config?.auth === 'apiKey' && required === undefined) {
      throw new Error(`${String(route.method)} ${route.url} takes API keys but names no config.scopes (see src/access/scopes.ts and docs/decisions/019-scoped-keys.md)`)
    }
    if (!required || required.length === 0) return
    route.preParsing = [route.preParsing ?? []].flat().concat(async function requireScopes (request: FastifyRequest) {
      const missing = missingScope(request.apiKey, required)
      if (missing) throw insufficientScope(missing)
    })
  })
}, { name: 'scopes', dependencies: ['auth', 'plan'] })
