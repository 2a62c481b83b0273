import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { publicUrl } from '../src/config.js'

/** The OpenAPI document of the tagged routes, generated from their schemas, at /docs (JSON at /docs/json). Register before the routes. */
export default fp(async function docs (app) {
  await app.register(swagger, {
    hideUntagged: true,
    openapi: {
      info: { title: 'Outbound API', version: 'preview', description: 'Send WhatsApp messages through your connected number. Growth and Scale plans.' },
      // PUBLIC_URL when set (behind a proxy), else where the server listens: a generated client's base URL
      servers: [{ url: publicUrl(app.config), description: 'This gateway' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } } }
    }
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
}, { name: 'docs' })
