import type { FastifyBaseLogger } from 'fastify'
import type { TokenCipher } from '../crypto/token-cipher.js'
import type { Connection } from '../store/connections.js'
import type { MessageRecord, MessageStore } from '../store/messages.js'
import type { UpstreamClient } from '../upstream/client.js'
import type { SendResult } from '../upstream/types.js'
import { sendFailure } from './failure.js'

export interface DispatchDeps {
  upstream: UpstreamClient
  messages: MessageStore
  cipher: TokenCipher
  log: FastifyBaseLogger
}

export interface DispatchOptions {
  /** the sending number's connection: its access token authorises the send */
  connection: Connection
}

export type Dispatch = (record: MessageRecord, options: DispatchOptions) => Promise<{ wamid: string }>

/**
 * Sends a pending record upstream and ends it `sent` or `failed`. For now one attempt, at once:
 * pacing and retries will live behind this same signature. The caller going away does not stop it.
 */
export function createDispatcher (deps: DispatchDeps): Dispatch {
  return async function dispatch (record, options) {
    let result: SendResult
    try {
      const token = deps.cipher.decrypt(options.connection.accessToken)
      result = await deps.upstream.sendMessage(record.phoneNumberId, token, record.payload as Record<string, unknown>)
    } catch (error) {
      const failure = sendFailure(error)
      await deps.messages.markFailed(record.id, { errorCode: failure.errorCode, errorText: failure.errorText, attempts: failure.attempted ? 1 : 0 })
      deps.log.warn({ messageId: record.id, errorCode: failure.errorCode, error: failure.errorText }, 'message failed')
      throw failure.response
    }
    await deps.messages.markSent(record.id, { wamid: result.wamid, attempts: 1 })
    deps.log.info({ messageId: record.id, wamid: result.wamid }, 'message sent')
    return { wamid: result.wamid }
  }
}
