import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { asset } from '../../src/dashboard/assets.js'
import { notFound } from '../../src/errors.js'

/** GET /dashboard/assets/:name: the stylesheet and script, cached for good when the URL names their version. */
const assets: FastifyPluginAsyncTypebox = async function (app) {
  app.get('/assets/:name', {
    schema: { params: Type.Object({ name: Type.String({ maxLength: 64 }) }), querystring: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64 })) }) }
  }, async function serveAsset (request, reply) {
    const found = asset(request.params.name) ?? fail(request.params.name)
    const etag = `"${found.version}"`
    reply.header('etag', etag)
    reply.header('cache-control', request.query.v === found.version ? 'public, max-age=31536000, immutable' : 'no-cache')
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    return reply.type(found.type).send(found.body)
  })
}

function fail (name: string): never {
  throw notFound(`No dashboard asset ${name}`)
}

export default assets
