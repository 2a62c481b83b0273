import { causes } from './faults/causes.js'

/**
 * Errors as a log line may carry them (CONTRACT.md 12): a database error by its SQL state and the
 * statement it came from (its verb and table), never its parameters or the values a message or a
 * DETAIL quotes (texts, phone numbers, e-mail addresses, key hashes); any other error by its type,
 * code and the first line of its message, cut short. Used by the logger's serializers, so that every
 * `{ err }` of every logger passes through here, and by the places that log an error as text.
 */
export type SafeError = {
  type: string
  /** a database error's SQLSTATE, or a system error's code (ECONNREFUSED) */
  code?: string
  /** a database error's statement, its verb and first table: `insert messages`, `select api_keys` */
  statement?: string
  message: string
  /** the frames only (the first line of a stack repeats the message) */
  stack: string
}

const SQL_STATE = /^[0-9A-Z]{5}$/
const CODE = /^[A-Za-z0-9_.-]{1,40}$/
const MAX_MESSAGE = 300

export function safeError (error: unknown): SafeError {
  if (typeof error !== 'object' || error === null) return { type: typeof error, message: typeof error === 'string' ? scrub(error) : String(error), stack: '' }
  const database = databaseCause(error)
  if (database) {
    const message = `database error ${database.code}${database.statement ? ` in ${database.statement}` : ''}`
    return { type: 'DatabaseError', code: database.code, ...(database.statement && { statement: database.statement }), message, stack: '' }
  }
  const { name, code, message, stack } = error as { name?: unknown, code?: unknown, message?: unknown, stack?: unknown }
  return {
    type: typeof name === 'string' ? name : 'Error',
    ...(typeof code === 'string' && CODE.test(code) && { code }),
    ...(typeof code === 'number' && { code: String(code) }),
    message: typeof message === 'string' ? scrub(message) : '',
    stack: typeof stack === 'string' ? stack.split('\n').filter(line => /^\s+at /.test(line)).slice(0, 15).join('\n') : ''
  }
}

/** An error as one line of text for a log field or a stored `last_error`: its first line, cut short; a database error's SQL state and statement. */
export function safeErrorText (error: unknown): string {
  return safeError(error).message
}

/** The SQL state and statement of a database error, looked for through its causes (drizzle wraps the driver's). */
function databaseCause (error: object): { code: string, statement?: string } | undefined {
  let query: string | undefined
  for (const link of causes(error)) {
    if (typeof link.query === 'string') query ??= link.query
    const looksLikeDatabase = link.name === 'PostgresError' || link.name === 'DrizzleQueryError' || typeof link.severity === 'string' || query !== undefined
    if (looksLikeDatabase && typeof link.code === 'string' && SQL_STATE.test(link.code)) return { code: link.code, statement: statementName(query) }
  }
  return query !== undefined ? { code: 'unknown', statement: statementName(query) } : undefined
}

/** A statement's verb and first table, from its text: identifiers only, never a literal. */
export function statementName (query: string | undefined): string | undefined {
  if (!query) return undefined
  const text = query.replace(/\s+/g, ' ').trim().toLowerCase()
  const verb = /^(with|select|insert|update|delete|lock|listen|notify|set|show|begin|commit|rollback|create|alter|drop)\b/.exec(text)?.[1]
  if (!verb) return undefined
  const table = /\b(?:from|into|update|table|lock) "?([a-z_][a-z0-9_]*)"?/.exec(text)?.[1]
  return table ? `${verb} ${table}` : verb
}

// what a driver's message may append: the failed query and its parameters
function scrub (message: string): string {
  const first = message.split('\n')[0]
  const cut = first.replace(/\b(Failed query|params|parameters)\b:.*$/i, '$1: [omitted]')
  return cut.length > MAX_MESSAGE ? `${cut.slice(0, MAX_MESSAGE)}…` : cut
}
