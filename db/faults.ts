/**
 * The database's part of the one classification of dependency errors (src/faults/classify.ts): here,
 * on the floor, so that the store's own batcher can ask it without reaching above the store.
 */

// postgres.js's connection errors and Node's socket errors; DATABASE_* are db/gate.ts's.
const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'DATABASE_WAIT_TIMEOUT', 'DATABASE_UNAVAILABLE',
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
// SQLSTATE classes and codes that say "not now" rather than "not this": connection exception (08),
// insufficient resources (53), operator intervention (57P01–57P05: shutdown, cannot connect now),
// a cancelled statement (57014: statement_timeout), serialization failure and
// deadlock (40001, 40P01), lock not available (55P03), system error (58).
const RETRY_LATER_STATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-5]|57014|40001|40P01|55P03|58[0-9A-Z]{3})$/
const SQLSTATE = /^[0-9A-Z]{5}$/

export interface DatabaseFault { retry: 'later' | 'final', code: string }

/** What one error object (not its causes) says of the database, or undefined: not the database's. */
export function databaseFaultOf (code: unknown): DatabaseFault | undefined {
  if (typeof code !== 'string') return undefined
  if (CONNECTION_CODES.has(code)) return { retry: 'later', code }
  if (SQLSTATE.test(code)) return { retry: RETRY_LATER_STATE.test(code) ? 'later' : 'final', code }
  return undefined
}

/** The database blinked (in the error or its causes): the same statement may succeed later. */
export function isDatabaseRetryLater (error: unknown): boolean {
  for (let current = error as { code?: unknown, cause?: unknown } | undefined, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const fault = databaseFaultOf(current.code)
    if (fault) return fault.retry === 'later'
    current = current.cause as typeof current
  }
  return false
}
