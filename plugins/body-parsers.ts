import formbody from '@fastify/formbody'
import multipart, { type MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { missingScope } from '../src/access/scopes.js'
import { insufficientScope, unsupportedEncoding } from '../src/errors.js'
import { parseFormBody } from '../src/messages/form.js'
import { parseJsonBody } from '../src/messages/json-body.js'
import { readMultipartFields } from '../src/messages/multipart.js'

/**
 * The API's bodies: JSON in any charset, PHP-style forms, multipart fields; any other type is a 415.
 * Registered in the API's scope only, so other routes keep Fastify's parsers (webhooks need raw JSON).
 */
export default fp(async function bodyParsers (app) {
  const limit = app.config.BODY_LIMIT_BYTES
  // Fastify would hand the compressed bytes to the parsers, which would call them malformed.
  app.addHook('preParsing', async function refuseEncodedBodies (request) {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase()
    if (encoding && encoding !== 'identity') throw unsupportedEncoding(encoding)
  })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async function parseJson (request: FastifyRequest, body: Buffer) {
    return parseJsonBody(request.headers['content-type'], body)
  })
  await app.register(formbody, { parser: parseFormBody })
  await app.register(multipart, { limits: { fieldNameSize: 200, fieldSize: limit, fields: 1000, parts: 1000, headerPairs: 100 } })

  // Multipart is read here rather than by a parser, so it comes after the checks of the earlier hooks too.
  // A route with `config.mediaFile: 'stream'` reads its parts itself; 'spool' takes a media file part (plugins/media.ts).
  // A send carrying its file uploads it too (CONTRACT.md 16): it needs media:write besides the route's messages:send.
  async function spoolFile (request: FastifyRequest, part: MultipartFile) {
    const missing = missingScope(request.apiKey, ['media:write'])
    if (missing) {
      part.file.resume()
      throw insufficientScope(missing)
    }
    return await app.mediaFiles.spool(part)
  }
  app.addHook('preValidation', async function readMultipart (request: FastifyRequest) {
    const mediaFile = request.routeOptions.config.mediaFile
    if (!request.isMultipart() || mediaFile === 'stream') return
    request.body = await readMultipartFields(request, mediaFile === 'spool'
      ? { limitBytes: limit, onFile: async part => { request.mediaFile = await spoolFile(request, part) }, fileLimitBytes: app.config.MEDIA_MAX_BYTES }
      : { limitBytes: limit })
  })
}, { name: 'body-parsers', dependencies: ['db', 'media'] })
