import type { FastifyInstance, RouteOptions } from 'fastify'

/**
 * Which methods each registered path accepts, so that an unmatched request can be told 405 with an
 * `Allow` header rather than 404. Fastify's router answers only "no route", not "wrong method".
 */
export function trackRouteMethods (app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp, methods: Set<string> }[] = []
  app.addHook('onRoute', function recordRoute (route: RouteOptions) {
    const source = '^' + route.url.split('/').map(part =>
      part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/') + '/?$'
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const existing = routes.find(known => known.pattern.source === source)
    if (existing) methods.forEach(method => existing.methods.add(method))
    else routes.push({ pattern: new RegExp(source), methods: new Set(methods) })
  })
  return function allowedMethods (path: string): string[] {
    const allowed = new Set<string>()
    for (const route of routes) if (route.pattern.test(path)) route.methods.forEach(method => allowed.add(method))
    return [...allowed].sort()
  }
}
