import { randomInt } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { GraphError } from './graph-error.js'

const HANDSHAKE_TIMEOUT_MS = 5000

/** The GET verification the upstream runs before it accepts a callback URL. */
export async function verifyCallback (uri: string, verifyToken: string): Promise<void> {
  const challenge = String(randomInt(100_000_000, 2_000_000_000))
  const url = new URL(uri)
  url.searchParams.set('hub.mode', 'subscribe')
  url.searchParams.set('hub.challenge', challenge)
  url.searchParams.set('hub.verify_token', verifyToken)
  let response: Response
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS) })
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'curl_errno = 28; curl_error = Operation timed out' : "curl_errno = 7; curl_error = Couldn't connect to server"
    throw verificationFailed(`${reason}; HTTP Status Code = 0; HTTP Message = Unknown`)
  }
  const answer = await response.text()
  if (response.status !== 200) {
    const message = response.statusText || STATUS_CODES[response.status] || 'Unknown'
    throw verificationFailed(`HTTP Status Code = ${response.status}; HTTP Message = ${message}`)
  }
  if (answer !== challenge) {
    throw verificationFailed(`Response does not match challenge, expected value="${challenge}", received="${answer.slice(0, 100)}"`)
  }
}

function verificationFailed (errors: string): GraphError {
  const message = `(#2200) Callback verification failed with the following errors: ${errors}`
  return new GraphError(2200, { message, details: message })
}
