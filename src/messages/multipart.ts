import type { FastifyRequest } from 'fastify'
import { AppError, invalidRequest, payloadTooLarge } from '../errors.js'
import { parseFormBody } from './form.js'

/**
 * multipart/form-data fields, read as a form (nested keys and JSON strings alike). A file part is
 * refused: media go upstream by media_id or link. @fastify/multipart does not apply Fastify's body
 * limit, so it is applied here.
 */
export async function readMultipartFields (request: FastifyRequest, limitBytes: number): Promise<Record<string, unknown>> {
  if (Number(request.headers['content-length']) > limitBytes) throw payloadTooLarge(limitBytes)
  const pairs: string[] = []
  let size = 0
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        part.file.resume()
        throw invalidRequest(`${part.fieldname} is a file: files are not accepted; send media_id or link`, part.fieldname)
      }
      if (part.fieldnameTruncated || part.valueTruncated) throw payloadTooLarge(limitBytes)
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
      size += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value)
      if (size > limitBytes) throw payloadTooLarge(limitBytes)
      pairs.push(`${encodeURIComponent(part.fieldname)}=${encodeURIComponent(value)}`)
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    if ((error as { statusCode?: number }).statusCode === 413) throw payloadTooLarge(limitBytes)
    throw invalidRequest(`The multipart body is malformed: ${(error as Error).message}`)
  }
  return parseFormBody(pairs.join('&'))
}
