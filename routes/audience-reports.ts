import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { limitsOf, usagePeriod, usageRows } from '../src/audience/reports.js'
import { LimitsSchema, UsageQuerySchema, UsageSchema } from '../src/audience/schemas.js'
import { qualityHistoryOf } from '../src/store/campaign-guard.js'
import { ErrorEnvelopeSchema } from '../src/messages/schemas.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'

const errors = { '4xx': ErrorEnvelopeSchema, '5xx': ErrorEnvelopeSchema }

/** GET /api/limits.php and GET /api/usage.php (CONTRACT.md 14): where the workspace stands, and what it sent. */
const audienceReports: FastifyPluginAsyncTypebox = async function (app) {
  const common = { tags: ['audience'], security: [{ apiKey: [] }] }

  app.get('/api/limits.php', {
    config: { auth: 'apiKey', scopes: ['usage:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'getLimits',
      summary: 'The connected numbers with their quality, throughput and messaging limit',
      description: "The messaging limit counts unique recipients of templates sent outside their service window in a rolling 24 h; the WhatsApp Business Account's numbers share it. Needs the usage:read scope; an empty list without a connection.",
      response: { 200: LimitsSchema, ...errors }
    }
  }, async function getLimits (request) {
    const active = await app.connections.active(request.apiKey.workspaceId)
    return { ok: true as const, phone_numbers: await limitsOf(active, app.messagingLimit, app.config.THROUGHPUT_MPS, async (numbers, since) => await qualityHistoryOf(app.database.db, numbers, since)) }
  })

  app.get('/api/usage.php', {
    config: { auth: 'apiKey', scopes: ['usage:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      ...common,
      operationId: 'getUsage',
      summary: 'Messages sent, billable and free, per day, pricing category or country',
      description: 'Counts the messages the upstream accepted, created in [since, until) (default: the last 30 days), with the pricing their status webhooks reported. Needs the usage:read scope.',
      querystring: UsageQuerySchema,
      response: { 200: UsageSchema, ...errors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function getUsage (request) {
    return { ok: true as const, rows: await usageRows(app.usage, request.apiKey.workspaceId, usagePeriod(request.query)) }
  })
}

export default audienceReports
