import type { MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { AppError, invalidRequest, payloadTooLarge } from '../errors.js'
import { classify } from '../faults/classify.js'
import { parseFormBody } from './form.js'

export interface MultipartOptions {
  /** the fields' limit (BODY_LIMIT_BYTES) */
  limitBytes: number
  /**
   * A route that takes a media file (a one-call send, CONTRACT.md 13): reads the part named `file`,
   * bounded by its own limit (`fileLimitBytes`) rather than the fields'; `type` is the message's type
   * field if it came before the file (a file on a message that takes none is refused unread). Without
   * it, a file part is a 422.
   */
  onFile?: (part: MultipartFile, type: string | undefined) => Promise<void>
  fileLimitBytes?: number
}

/**
 * multipart/form-data fields, read as a form (nested keys and JSON strings alike). A file part is
 * refused unless the route takes one. @fastify/multipart does not apply Fastify's body limit, so it
 * is applied here.
 */
export async function readMultipartFields (request: FastifyRequest, options: MultipartOptions): Promise<Record<string, unknown>> {
  const { limitBytes, onFile, fileLimitBytes = 0 } = options
  if (Number(request.headers['content-length']) > limitBytes + (onFile ? fileLimitBytes : 0)) throw payloadTooLarge(limitBytes + (onFile ? fileLimitBytes : 0))
  const pairs: string[] = []
  let size = 0
  let files = 0
  let type: string | undefined
  try {
    for await (const part of request.parts(onFile ? { limits: { fileSize: fileLimitBytes + 1 } } : {})) {
      if (part.type === 'file') {
        if (!onFile || part.fieldname !== 'file' || files++ > 0) {
          part.file.resume()
          throw invalidRequest(`${part.fieldname} is a file: ${onFile ? 'send one media file, as the part named file' : 'files are not accepted; send media_id or link'}`, part.fieldname)
        }
        await onFile(part, type)
        continue
      }
      if (part.fieldnameTruncated || part.valueTruncated) throw payloadTooLarge(limitBytes)
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
      if (part.fieldname === 'type') type ??= value
      size += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value)
      if (size > limitBytes) throw payloadTooLarge(limitBytes)
      pairs.push(`${encodeURIComponent(part.fieldname)}=${encodeURIComponent(value)}`)
    }
  } catch (error) {
    throw partsFailure(error, () => payloadTooLarge(limitBytes))
  }
  return parseFormBody(pairs.join('&'))
}

/**
 * What a failure while reading multipart parts answers. Only the body's own faults are the client's:
 * a part over the limit (413) and a malformed body (422). Our answers pass as they are; a dependency
 * failing meanwhile (the database while an upload is recorded: 503 with Retry-After, src/faults) and
 * the machine's own (a full disk while spooling) go to the error handler, never as the client's 422.
 */
export function partsFailure (error: unknown, tooLarge: () => AppError): unknown {
  if (error instanceof AppError || classify(error) !== undefined) return error
  if (typeof (error as { syscall?: unknown }).syscall === 'string') return error
  if ((error as { statusCode?: number }).statusCode === 413) return tooLarge()
  return invalidRequest(`The multipart body is malformed: ${(error as Error).message}`)
}
