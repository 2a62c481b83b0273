import type { FastifyRequest } from 'fastify'
import type { MultipartFile } from '@fastify/multipart'
import { requireNumber } from '../access/scopes.js'
import { sendingNumber } from '../connections/sending-number.js'
import { fileTooLarge, invalidRequest } from '../errors.js'
import { partsFailure } from '../messages/multipart.js'
import type { MediaRow } from '../store/media.js'
import type { MediaDeps } from './deps.js'
import { openChecked, spoolChecked, type CheckedStream } from './intake.js'
import { sizeLabel, sizeLimit } from './kinds.js'
import { uploadSpooled, uploadStream, type UploadTarget } from './upload.js'

// Room for the other parts and the multipart framing around the file.
export const MULTIPART_ALLOWANCE = 64 * 1024

/**
 * POST /api/media.php's body: `multipart/form-data` with one `file` part and an optional
 * `phone_number_id` before it. The file is checked as it arrives and streamed on to the upstream
 * when the request's length proves it within its kind's limit; otherwise (no length, or one that
 * does not prove it) it is spooled first, so that nothing goes upstream before every check passed.
 */
export async function uploadFromRequest (deps: MediaDeps, request: FastifyRequest): Promise<MediaRow> {
  const length = Number(request.headers['content-length'])
  if (length > deps.maxBytes + MULTIPART_ALLOWANCE) throw fileTooLarge(sizeLabel(deps.maxBytes))
  const { connection, numbers } = request.activeConnection
  const token = deps.cipher.decrypt(connection.accessToken)
  // the key's numbers first (403), as for a JSON send (plugins/sender.ts), then the workspace's (422)
  const uploadNumber = (named: string | undefined) => {
    requireNumber(request.apiKey, named ?? numbers[0].phoneNumberId)
    return sendingNumber(numbers, named)
  }
  let wanted: string | undefined
  let uploaded: MediaRow | undefined
  try {
    for await (const part of request.parts({ limits: { fileSize: deps.maxBytes + 1, files: 2, fields: 20, fieldSize: 1024, parts: 22 } })) {
      if (part.type === 'field') {
        if (part.fieldname !== 'phone_number_id') continue
        wanted = String(part.value)
        if (uploaded) await checkLateNumber(deps, uploaded, () => uploadNumber(wanted), token)
        continue
      }
      if (part.fieldname !== 'file' || uploaded) {
        part.file.resume()
        if (uploaded) await withdraw(deps, uploaded, token)
        throw invalidRequest(`${part.fieldname} is a file part: send exactly one, named file`, part.fieldname)
      }
      let phoneNumberId: string
      try {
        phoneNumberId = uploadNumber(wanted).phoneNumberId
      } catch (error) {
        part.file.resume()
        throw error
      }
      const target = { workspaceId: request.apiKey.workspaceId, phoneNumberId, token }
      uploaded = await uploadPart(deps, target, part, length)
    }
  } catch (error) {
    throw partsFailure(error, () => fileTooLarge(sizeLabel(deps.maxBytes)))
  }
  if (!uploaded) throw invalidRequest('file is required: send the file as a multipart part named file', 'file')
  return uploaded
}

async function uploadPart (deps: MediaDeps, target: UploadTarget, part: MultipartFile, length: number): Promise<MediaRow> {
  const stream = await openChecked(part.file, { contentType: part.mimetype, filename: part.filename }, deps.maxBytes)
  if (provenWithin(stream, length, deps.maxBytes)) return await uploadStream(deps, target, stream)
  const spooled = await spoolChecked(stream, deps.storage)
  try {
    return await uploadSpooled(deps, target, spooled)
  } finally {
    await spooled.spool.discard()
  }
}

/** The whole request is no longer than the file's limits: the file cannot pass them. */
function provenWithin (stream: CheckedStream, length: number, maxBytes: number): boolean {
  return Number.isSafeInteger(length) && length <= Math.min(maxBytes, sizeLimit(stream.sniffed.kind, stream.sniffed.animated).bytes)
}

/** A phone_number_id after the file: fine when it names the number the file went up from. */
async function checkLateNumber (deps: MediaDeps, uploaded: MediaRow, named: () => { phoneNumberId: string }, token: string): Promise<void> {
  try {
    if (named().phoneNumberId === uploaded.phoneNumberId) return
  } catch (error) {
    await withdraw(deps, uploaded, token)
    throw error
  }
  await withdraw(deps, uploaded, token)
  throw invalidRequest('phone_number_id must come before the file part: the file is uploaded from the number known when it arrives', 'phone_number_id')
}

/** An upload the request ends up refusing is deleted upstream and forgotten (best effort: it expires anyway). */
async function withdraw (deps: MediaDeps, uploaded: MediaRow, token: string): Promise<void> {
  await deps.upstream.media.delete(uploaded.mediaId, token).catch(() => {})
  await deps.media.remove(uploaded.workspaceId, uploaded.mediaId)
}
