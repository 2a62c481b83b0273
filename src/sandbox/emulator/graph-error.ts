import { randomBytes } from 'node:crypto'
import { codeInfo } from './error-codes.js'

export interface GraphErrorInit {
  details?: string
  httpStatus?: number
  subcode?: number
  /** the whole `message`, for the few Graph errors that do not read "(#code) title" */
  message?: string
  headers?: Record<string, string>
}

export class GraphError extends Error {
  readonly code: number
  readonly httpStatus: number
  readonly details: string
  readonly subcode?: number
  readonly headers: Record<string, string>

  constructor (code: number, init: GraphErrorInit = {}) {
    const info = codeInfo(code)
    super(init.message ?? `(#${code}) ${info.title}`)
    this.code = code
    this.httpStatus = init.httpStatus ?? info.http
    this.details = init.details ?? info.details ?? info.title
    this.subcode = init.subcode
    this.headers = init.headers ?? {}
  }

  get title (): string {
    return codeInfo(this.code).title
  }

  toEnvelope (): { error: Record<string, unknown> } {
    return {
      error: {
        message: this.message,
        type: 'OAuthException',
        code: this.code,
        ...(this.subcode === undefined ? {} : { error_subcode: this.subcode }),
        error_data: { messaging_product: 'whatsapp', details: this.details },
        fbtrace_id: fbtraceId()
      }
    }
  }
}

export function fbtraceId (): string {
  return randomBytes(18).toString('base64url').slice(0, 23)
}

export function invalidParameter (details: string): GraphError {
  return new GraphError(100, { details })
}

export function invalidValue (details: string): GraphError {
  return new GraphError(131009, { details })
}

export function requiredParameter (name: string): GraphError {
  return new GraphError(100, { details: `The parameter ${name} is required.` })
}

export function invalidToken (message: string): GraphError {
  return new GraphError(190, { message, details: message })
}

export function unknownObject (id: string, method: string): GraphError {
  const message = `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, ` +
    'cannot be loaded due to missing permissions, or does not support this operation. ' +
    'Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api'
  return new GraphError(100, { subcode: 33, message, details: message })
}
