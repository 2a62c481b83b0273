import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { notFound, unsupportedMediaType } from '../src/errors.js'
import { downloadHeaders } from '../src/media/download.js'
import { MediaErrors, MediaQuerySchema, MediaReadSchema, MediaUploadedSchema } from '../src/media/schemas.js'
import { mediaResource } from '../src/media/upload.js'
import { bodyValidationError } from '../src/messages/validation-errors.js'

const UPLOAD_BODY = 'multipart/form-data with a file part'

/** /api/media.php (CONTRACT.md 13): upload a file for sends by media_id; read or download an upload or an inbound file. */
const media: FastifyPluginAsyncTypebox = async function (app) {
  app.post('/api/media.php', {
    // the send's checks: 401 → 429 → 403 → 409; the body is read by the handler, as a stream
    config: { auth: 'apiKey', scopes: ['media:write'], rateLimit: {}, plan: ['growth', 'scale'], sender: true, mediaFile: 'stream', accepts: UPLOAD_BODY },
    schema: {
      operationId: 'uploadMedia',
      tags: ['media'],
      summary: 'Upload a file for sending by media_id',
      description: '`multipart/form-data` with one part named `file` (and optionally `phone_number_id` before it). The type is taken from the content and must be one WhatsApp accepts, within its kind\'s size (image 5 MB, video and audio 16 MB, document 100 MB, sticker 100 KB static / 500 KB animated); a declared type (the part\'s Content-Type or the file name\'s extension) that contradicts the content is refused. Nothing goes upstream before these checks pass.',
      security: [{ apiKey: [] }],
      consumes: ['multipart/form-data'],
      response: { 200: MediaUploadedSchema, ...MediaErrors }
    }
  }, async function uploadMedia (request) {
    if (!request.isMultipart()) throw unsupportedMediaType(request.headers['content-type'], UPLOAD_BODY)
    return { ok: true as const, ...mediaResource(await app.mediaFiles.upload(request)) }
  })

  app.get('/api/media.php', {
    config: { auth: 'apiKey', scopes: ['messages:read'], rateLimit: {}, plan: ['growth', 'scale'] },
    schema: {
      operationId: 'readMedia',
      tags: ['media'],
      summary: 'Read a media\'s metadata, or download it',
      description: 'An upload or an inbound file of your workspace (404 otherwise). With `download=1`: the bytes, streamed, with Content-Type (a type outside WhatsApp\'s media table as application/octet-stream), Content-Length, Content-Disposition, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`: from the mirror for inbound files (MEDIA_MIRROR=on), else from the upstream while it still has them.',
      security: [{ apiKey: [] }],
      querystring: MediaQuerySchema,
      produces: ['application/json', 'application/octet-stream'],
      response: { 200: MediaReadSchema, ...MediaErrors }
    },
    schemaErrorFormatter: bodyValidationError
  }, async function readMedia (request, reply) {
    const row = await app.media.find(request.apiKey.workspaceId, request.query.id) ?? (() => { throw notFound('No media with this id in your workspace') })()
    if (request.query.download !== '1' && request.query.download !== 'true') {
      return { ok: true as const, ...mediaResource(row), origin: row.origin, stored: row.storedAt !== null }
    }
    const file = await app.mediaFiles.open(row)
    return await reply.headers(downloadHeaders(file, 'attachment')).send(file.stream as never)
  })
}

export default media
