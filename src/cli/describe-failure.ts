import { DrizzleQueryError } from 'drizzle-orm/errors'
import { ConfigError } from '../config.js'
import { EmbeddedDatabaseBusyError } from '../embedded-lock.js'
import { findCause } from '../faults/causes.js'
import { CommandError } from './command.js'

/**
 * The one line a failed command prints as `error` (CONTRACT.md 4, 12): a sentence, never
 * `[object Object]`, whatever was thrown (an Error, a plain object, a string, nothing), and never
 * a failed statement's parameters.
 */
export function describeFailure (error: unknown): string {
  if (error instanceof ConfigError || error instanceof EmbeddedDatabaseBusyError || error instanceof CommandError) return error.message
  // A failed query's message lists its parameters, which can hold a key's hash: only the driver's reason is shown.
  const reason = findCause(error, link => !(link instanceof DrizzleQueryError)) ?? error
  return `unexpected error: ${reasonText(reason).split('\n')[0]}`
}

function reasonText (reason: unknown): string {
  if (typeof reason === 'string') return reason || 'no message'
  if (typeof reason !== 'object' || reason === null) return String(reason)
  const { message, code, name } = reason as { message?: unknown, code?: unknown, name?: unknown }
  const said = typeof message === 'string' && message !== '' && message !== '[object Object]' ? message : undefined
  const codeText = typeof code === 'string' || typeof code === 'number' ? String(code) : undefined
  if (said) return codeText && !said.includes(codeText) ? `${said} (${codeText})` : said
  if (codeText) return `${typeof name === 'string' ? name : 'error'} ${codeText}`
  if (reason instanceof Error) return `${reason.name} without a message`
  return 'a failure without a message'
}
