import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { publicUrl } from '../src/config.js'
import { asset } from '../src/dashboard/assets.js'

// Swagger UI's own top bar (its logo and a box to load any URL) gives way to ours.
const BAR_CSS = `.swagger-ui .topbar { display: none; }
.outbound-docs-bar { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: 0.75rem 1.25rem; background: #fff; border-bottom: 1px solid #d5dae0; font: 15px/1.5 system-ui, sans-serif; }
.outbound-docs-bar a { color: #0a6e55; font-weight: 600; }
.outbound-docs-bar span { color: #57606a; }`
// A file of the page (served under /docs/static/theme/), not inline: it runs after the body is parsed.
const BAR_JS = `(function () {
  var bar = document.createElement('header')
  bar.className = 'outbound-docs-bar'
  var back = document.createElement('a')
  back.href = '/dashboard'
  back.textContent = '← Back to the dashboard'
  var title = document.createElement('span')
  title.textContent = 'Outbound API reference'
  bar.appendChild(back)
  bar.appendChild(title)
  document.body.insertBefore(bar, document.body.firstChild)
})()`

/** @fastify/swagger's options: the OpenAPI document of the tagged routes. */
export function swaggerOptions (app: FastifyInstance): Record<string, unknown> {
  return {
    hideUntagged: true,
    openapi: {
      info: { title: 'Outbound API', version: 'preview', description: 'Send WhatsApp messages through your connected number. Growth and Scale plans.' },
      // PUBLIC_URL when set (behind a proxy), else where the server listens: a generated client's base URL
      servers: [{ url: publicUrl(app.config), description: 'This gateway' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } } }
    }
  }
}

/** @fastify/swagger-ui's options: the page at /docs. */
export function uiOptions (): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    // The reference is one page of the product: the dashboard's icon, and a bar with the way back.
    theme: {
      title: 'API reference · Outbound',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: asset('favicon.svg')!.body }],
      css: [{ filename: 'outbound.css', content: BAR_CSS }],
      js: [{ filename: 'outbound.js', content: BAR_JS }]
    }
  }
}

/**
 * The routes @fastify/swagger-ui registers with uiOptions(), under /docs (GET ones answer HEAD too;
 * its static files are one wildcard route), registered here at start as it does, so that the router,
 * 405's Allow and the route list are as with the plugin itself (tests/house/docs-lazy.test.ts).
 */
export const DOCS_ROUTES: ReadonlyArray<{ url: string, method: 'GET' | ['HEAD', 'GET'] }> = [
  ...['/static/theme/outbound.css', '/static/theme/outbound.js', '/static/theme/favicon.svg', '/', '/static/index.html',
    '/static/swagger-initializer.js', '/json', '/yaml'].map(url => ({ url, method: 'GET' as const })),
  { url: '/static/*', method: ['HEAD', 'GET'] }
]

// what an answer of the pages' own instance keeps when it is sent as this app's
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

type SwaggerHooks = { onRoute?: (route: RouteOptions) => void, onRegister?: (instance: unknown) => Promise<void> | void, onReady?: (done: () => void) => void }
type SwaggerPlugin = (instance: unknown, options: Record<string, unknown>, done: (error?: Error) => void) => void

/**
 * The OpenAPI document of the tagged routes, generated from their schemas, at /docs (JSON at
 * /docs/json). Register before the routes.
 *
 * @fastify/swagger and @fastify/swagger-ui (with @fastify/static, yaml and the UI's files, once read
 * at every start) load at the first request to /docs, which most starts never get. Until
 * then this plugin keeps what @fastify/swagger's own hooks keep (each route's options, the shared
 * schemas of each instance once ready) and gives them to it then: the document is the one it makes
 * when registered here. Swagger UI's pages are answered by a Fastify instance of their own, through
 * this app's routes (its hooks, error and not-found handlers, as when they were this app's).
 */
export default fp(async function docs (app) {
  const routes: RouteOptions[] = []
  let instances: FastifyInstance[] = []
  const schemas: Array<Record<string, unknown>> = []
  let rootSchemas: Record<string, unknown> = {}
  app.addHook('onRoute', function keepForDocs (route) { routes.push(route) })
  app.addHook('onRegister', function keepSchemasOf (instance) { instances.push(instance) })
  app.addHook('onReady', async function keepSchemas () {
    schemas.push(...instances.map(instance => instance.getSchemas()))
    rootSchemas = app.getSchemas()
    instances = []
  })

  async function document (): Promise<FastifyInstance['swagger']> {
    const { fastifySwagger } = await import('@fastify/swagger') as unknown as { fastifySwagger: SwaggerPlugin }
    const hooks: SwaggerHooks = {}
    let swagger: FastifyInstance['swagger'] | undefined
    const host = {
      addHook: (name: keyof SwaggerHooks, hook: never) => { hooks[name] = hook },
      decorate: (_name: string, value: typeof swagger) => { swagger = value },
      getSchemas: () => rootSchemas
    }
    await new Promise<void>((resolve, reject) => { fastifySwagger(host, swaggerOptions(app), error => { error ? reject(error) : resolve() }) })
    for (const route of routes) hooks.onRoute!(route)
    for (const kept of schemas) await hooks.onRegister!({ getSchemas: () => kept })
    await new Promise<void>(resolve => { hooks.onReady!(resolve) })
    return swagger!
  }

  async function openPages (): Promise<FastifyInstance> {
    const [swagger, { default: swaggerUi }] = await Promise.all([document(), import('@fastify/swagger-ui')])
    const pages = Fastify({ logger: false })
    pages.register(fp(async function documentOfTheApp (instance) { instance.decorate('swagger', swagger) }, { name: '@fastify/swagger' }))
    pages.register(swaggerUi, uiOptions())
    await pages.ready()
    return pages
  }

  let pages: Promise<FastifyInstance> | undefined
  async function docsPage (request: FastifyRequest, reply: FastifyReply, headToo: boolean) {
    pages ??= openPages().catch((error: unknown) => { pages = undefined; throw error })
    // asked as GET: a HEAD answer is made from it as this app makes every other
    const answer = await (await pages).inject({ method: 'GET', url: request.url, headers: request.headers })
    if (answer.statusCode === 404) return reply.callNotFound()
    for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) reply.header(name, value)
    reply.code(answer.statusCode)
    // the static files' route answers HEAD itself (@fastify/static): their length, no body
    if (request.method === 'HEAD' && headToo) return reply.header('content-length', answer.headers['content-length']).send()
    // an empty answer (a redirect, 304) stays without a body, as Fastify sends one
    return reply.send(answer.rawPayload.length > 0 ? answer.rawPayload : undefined)
  }
  await app.register(async function docsPages (pages) {
    for (const { url, method } of DOCS_ROUTES) pages.route({ method, url, schema: { hide: true }, handler: async (request, reply) => await docsPage(request, reply, Array.isArray(method)) })
  }, { prefix: '/docs' })
}, { name: 'docs' })
