import type { FastifyInstance, RouteOptions } from 'fastify'

/** One registered route as the router knows it (GET routes also answer HEAD). */
export interface RegisteredRoute {
  method: string
  url: string
  /** the names of its query parameters, when its schema lists them */
  queryNames: string[]
  config: Record<string, unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** every route the app registered, in order: for tools that must cover them all (the hostile-input fuzz test) */
    registeredRoutes: readonly RegisteredRoute[]
  }
}

/**
 * Which methods each registered path accepts, so that an unmatched request can be told 405 with an
 * `Allow` header rather than 404. Fastify's router answers only "no route", not "wrong method".
 */
export function trackRouteMethods (app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp, methods: Set<string> }[] = []
  const registered: RegisteredRoute[] = []
  app.decorate('registeredRoutes', registered)
  app.addHook('onRoute', function recordRoute (route: RouteOptions) {
    const source = '^' + route.url.split('/').map(part =>
      part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/') + '/?$'
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const existing = routes.find(known => known.pattern.source === source)
    if (existing) methods.forEach(method => existing.methods.add(method))
    else routes.push({ pattern: new RegExp(source), methods: new Set(methods) })
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined
    for (const method of methods) {
      registered.push({ method, url: route.url, queryNames: Object.keys(query?.properties ?? {}), config: (route.config ?? {}) as Record<string, unknown> })
    }
  })
  return function allowedMethods (path: string): string[] {
    const allowed = new Set<string>()
    for (const route of routes) if (route.pattern.test(path)) route.methods.forEach(method => allowed.add(method))
    return [...allowed].sort()
  }
}
