import formbody from '@fastify/formbody'
import multipart, { type MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { missingScope } from '../src/access/scopes.js'
import { insufficientScope, unsupportedEncoding } from '../src/errors.js'
import { parseFormBody } from '../src/messages/form.js'
import { parseJsonBody } from '../src/messages/json-body.js'
import type { HeldFile, SpooledFile } from '../src/media/intake.js'
import { requireFileTaker } from '../src/media/one-call.js'
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
  app.addHook('preValidation', async function readMultipart (request: FastifyRequest) {
    const mediaFile = request.routeOptions.config.mediaFile
    if (!request.isMultipart() || mediaFile === 'stream') return
    if (mediaFile !== 'spool') {
      request.body = await readMultipartFields(request, { limitBytes: limit })
      return
    }
    let held: HeldFile | undefined
    let fields: Record<string, unknown>
    try {
      fields = await readMultipartFields(request, {
        limitBytes: limit,
        fileLimitBytes: app.config.MEDIA_MAX_BYTES,
        onFile: async (part, type) => {
          if (type === undefined) held = await app.mediaFiles.hold(part)
          else request.mediaFile = await takeFile(request, part, type)
        }
      })
      if (held) {
        mayUpload(request, fields.type)
        request.mediaFile = await app.mediaFiles.check(held)
      }
    } catch (error) {
      // a held file the request ends up refusing; a checked one goes with the answer (plugins/media.ts)
      await held?.spool.discard()
      throw error
    }
    request.body = fields
  })

  /** A file part after the type: a message that takes no file is refused before a byte of it is read. */
  async function takeFile (request: FastifyRequest, part: MultipartFile, type: string): Promise<SpooledFile> {
    try {
      mayUpload(request, type)
    } catch (error) {
      part.file.resume()
      throw error
    }
    return await app.mediaFiles.spool(part)
  }

  /** A send carrying its file (CONTRACT.md 13) is a media message, and uploads it: media:write besides the route's messages:send (CONTRACT.md 16). */
  function mayUpload (request: FastifyRequest, type: unknown): void {
    requireFileTaker(type)
    const missing = missingScope(request.apiKey, ['media:write'])
    if (missing) throw insufficientScope(missing)
  }
}, { name: 'body-parsers', dependencies: ['db', 'media'] })
