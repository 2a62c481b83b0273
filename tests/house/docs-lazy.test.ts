import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import docsPlugin, { swaggerOptions, uiOptions } from '../../plugins/docs.js'
import type { Config } from '../../src/config.js'

const CONFIG = { HOST: '127.0.0.1', PORT: 3999 } as Config

/**
 * A small app in both ways: @fastify/swagger and @fastify/swagger-ui registered at start as the
 * gateway had them, and plugins/docs.ts, which loads them at the first request to /docs. Routes with
 * tags and without, shared schemas of the root and of nested instances, a $ref, a prefix.
 */
async function appWith (docs: 'eager' | 'lazy'): Promise<{ app: FastifyInstance, routes: string[] }> {
  const app = Fastify({ logger: false })
  const routes: string[] = []
  app.addHook('onRoute', route => { routes.push(`${String(route.method)} ${route.url}`) })
  app.decorate('config', CONFIG)
  app.addSchema({ $id: 'Envelope', type: 'object', properties: { ok: { type: 'boolean' } } })
  if (docs === 'eager') {
    await app.register(swagger, swaggerOptions(app))
    await app.register(swaggerUi, uiOptions())
  } else {
    await app.register(docsPlugin)
  }
  app.get('/health', async () => ({ ok: true }))
  await app.register(async function api (api) {
    api.addSchema({ $id: 'Message', type: 'object', properties: { id: { type: 'string' }, to: { type: 'string' } }, required: ['id'] })
    api.post('/messages', {
      schema: { tags: ['messages'], operationId: 'send', body: Type.Object({ to: Type.String({ description: 'the recipient' }) }), response: { 200: { $ref: 'Message#' }, '4xx': { $ref: 'Envelope#' } } }
    }, async () => ({ id: 'msg_1' }))
    api.get('/messages/:id', { schema: { tags: ['messages'], params: Type.Object({ id: Type.String() }), querystring: Type.Object({ limit: Type.Optional(Type.Integer()) }) } }, async () => ({ id: 'msg_1' }))
  }, { prefix: '/api' })
  await app.ready()
  return { app, routes }
}

describe('/docs loaded at its first request (plugins/docs.ts)', () => {
  it('has the routes @fastify/swagger-ui registers, and answers every page, the document and the static files as it does', async () => {
    const eager = await appWith('eager')
    const lazy = await appWith('lazy')
    try {
      expect(lazy.routes).toEqual(eager.routes)
      const targets = ['/docs', '/docs/', '/docs/json', '/docs/yaml', '/docs/static/index.html', '/docs/static/swagger-initializer.js',
        '/docs/static/theme/outbound.css', '/docs/static/theme/outbound.js', '/docs/static/theme/favicon.svg', '/docs/static/swagger-ui.css',
        '/docs/static/swagger-ui-bundle.js', '/docs/static/nothing-here.js', '/docs/nothing', '/docs/json?x=1']
      for (const url of targets) {
        for (const method of ['GET', 'HEAD'] as const) {
          const [before, after] = await Promise.all([eager.app.inject({ method, url }), lazy.app.inject({ method, url })])
          expect({ url, method, status: after.statusCode, type: after.headers['content-type'], location: after.headers.location, length: after.headers['content-length'], etag: after.headers.etag })
            .toEqual({ url, method, status: before.statusCode, type: before.headers['content-type'], location: before.headers.location, length: before.headers['content-length'], etag: before.headers.etag })
          expect(after.body, `${method} ${url}`).toBe(before.body)
        }
      }
      expect(JSON.parse((await lazy.app.inject('/docs/json')).body).paths['/api/messages'].post.operationId).toBe('send')
      // a browser's cached copy is still good: the file's validators pass through
      const file = await lazy.app.inject('/docs/static/swagger-ui.css')
      expect((await lazy.app.inject({ url: '/docs/static/swagger-ui.css', headers: { 'if-none-match': file.headers.etag as string } })).statusCode).toBe(304)
    } finally {
      await Promise.all([eager.app.close(), lazy.app.close()])
    }
  })
})
