import { AppError } from '../errors.js'
import { UpstreamError } from '../upstream/errors.js'

/** How a failed send is written on its record and answered to the caller. */
export interface SendFailure {
  /** the upstream's numeric code as a string, or ours (upstream_timeout, …) */
  errorCode: string
  errorText: string
  /** whether an upstream call was made */
  attempted: boolean
  response: Error
}

const MESSAGES = {
  timeout: 'The upstream did not answer in time; the message may or may not have been sent',
  unreachable: 'The upstream could not be reached; nothing was sent',
  lost: 'The connection to the upstream broke after the message was sent; its outcome is unknown'
} as const

export function sendFailure (error: unknown): SendFailure {
  if (!(error instanceof UpstreamError)) {
    return { errorCode: 'internal_error', errorText: (error as Error)?.message ?? String(error), attempted: false, response: error as Error }
  }
  const { code, detail } = error.details
  const errorText = detail && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message
  if (error.kind !== 'rejected') {
    return { errorCode: error.envelopeCode, errorText, attempted: true, response: new AppError(502, error.envelopeCode, MESSAGES[error.kind]) }
  }
  return {
    errorCode: code !== undefined ? String(code) : error.envelopeCode,
    errorText,
    attempted: true,
    response: new AppError(502, 'upstream_error', `The upstream refused the message: ${errorText}`,
      code !== undefined ? { upstream: { code, message: error.message } } : {})
  }
}
