import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
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
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The reference is one page of the product: the dashboard's icon, and a bar with the way back.
    theme: {
      title: 'API reference · Outbound',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: asset('favicon.svg')!.body }],
      css: [{ filename: 'outbound.css', content: BAR_CSS }],
      js: [{ filename: 'outbound.js', content: BAR_JS }]
    }
  })
}, { name: 'docs' })
