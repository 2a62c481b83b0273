import type { FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Plan } from '../db/schema.js'
import { planUpgradeRequired } from '../src/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the plans whose workspaces may call the route (with `auth: 'apiKey'`) */
    plan?: readonly Plan[]
  }
}

/** 403 unless the key's workspace is on one of the route's plans; after the rate limit, before the body is read. */
export default fp(async function plan (app) {
  app.addHook('onRoute', function gatePlan (route: RouteOptions) {
    const plans = route.config?.plan
    if (!plans) return
    route.preParsing = [route.preParsing ?? []].flat().concat(async function requirePlan (request: FastifyRequest) {
      if (!plans.includes(request.apiKey.plan)) throw planUpgradeRequired()
    })
  })
}, { name: 'plan', dependencies: ['auth', 'rate-limit'] })
