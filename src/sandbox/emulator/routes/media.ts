import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { applyFaults } from '../apply-faults.js'
import { accessToken, authorizeNumber } from '../auth.js'
import type { EmulatorContext } from '../context.js'
import { invalidParameter, invalidToken, requiredParameter, unknownObject } from '../graph-error.js'
import type { EmulatedMedia } from '../media-store.js'
import { checkUpload } from '../media-types.js'

type IdRequest = FastifyRequest<{ Params: { id: string } }>

/** `POST /{phone-number-id}/media` (multipart: messaging_product, type, file) and `DELETE /{media-id}`; `GET /{media-id}` is the node route's. */
export function mediaRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function media (app) {
    app.post<{ Params: { id: string } }>('/:id/media', async function uploadMedia (request, reply) {
      const { waba, number } = authorizeNumber(context, request)
      if (await applyFaults(context.faults, request, reply, { phoneNumberId: number.id })) return reply
      if (!request.isMultipart()) throw requiredParameter('file')
      const fields: Record<string, string> = {}
      let file: { bytes: Buffer, mimeType: string, filename: string } | undefined
      for await (const part of request.parts()) {
        if (part.type === 'field') fields[part.fieldname] = String(part.value)
        else if (part.fieldname === 'file' && !file) file = { bytes: await part.toBuffer(), mimeType: part.mimetype, filename: part.filename }
        else await part.toBuffer()
      }
      if (fields.messaging_product === undefined) throw requiredParameter('messaging_product')
      if (fields.messaging_product !== 'whatsapp') throw invalidParameter(`Param messaging_product must be one of {WHATSAPP} - got "${fields.messaging_product}".`)
      if (!file) throw requiredParameter('file')
      const type = fields.type ?? file.mimeType
      checkUpload(type, file.bytes.length)
      const stored = context.media.add({ wabaId: waba.account.wabaId, bytes: file.bytes, mimeType: type.split(';')[0].trim(), filename: file.filename })
      return { id: stored.id }
    })

    app.delete<{ Params: { id: string } }>('/:id', async function deleteMedia (request) {
      const media = authorizeMedia(context, request)
      context.media.delete(media.id)
      return { success: true }
    })
  }
}

/** `GET /{media-id}`: the node, with a download URL valid for the store's URL lifetime. */
export function mediaNode (context: EmulatorContext, request: IdRequest) {
  const media = authorizeMedia(context, request)
  return {
    messaging_product: 'whatsapp',
    url: `${request.protocol}://${request.host}/whatsapp_business/attachments/?${context.media.urlQuery(media)}`,
    mime_type: media.mimeType,
    sha256: media.sha256,
    file_size: media.fileSize,
    id: media.id
  }
}

/** The download URLs: the bytes, to the bearer of the owning WABA's token, while the URL is valid. */
export function mediaDownloadRoutes (context: EmulatorContext): FastifyPluginAsync {
  return async function mediaDownloads (app) {
    app.get<{ Querystring: { mid?: string, ext?: string, hash?: string } }>('/whatsapp_business/attachments/', async function download (request, reply) {
      const media = context.media.fromUrl(request.query)
      if (!media) return await reply.code(404).send({ error: { message: 'URL signature expired or not found', code: 404 } })
      const token = accessToken(request)
      if (token !== context.accounts.waba(media.wabaId).account.accessToken) return await reply.code(401).send({ error: { message: 'Authentication required', code: 190 } })
      if (context.media.takeFailure()) return await reply.code(500).send({ error: { message: 'Temporary failure', code: 1 } })
      media.downloads += 1
      return await reply.type(media.mimeType).header('content-length', String(media.fileSize)).send(context.media.takeBytes(media))
    })
  }
}

function authorizeMedia (context: EmulatorContext, request: IdRequest): EmulatedMedia {
  const token = accessToken(request)
  if (!token || !context.accounts.knowsToken(token)) throw invalidToken('Invalid OAuth access token - Cannot parse access token')
  const media = context.media.get(request.params.id)
  if (!media) throw unknownObject(request.params.id, request.method)
  if (context.accounts.waba(media.wabaId).account.accessToken !== token) throw unknownObject(request.params.id, request.method)
  return media
}
