import { causes } from './causes.js'

/**
 * The database's part of the one classification of dependency errors (classify.ts). It imports
 * nothing but causes.ts, so the store's own batcher can ask it without reaching above the store
 * (tests/house/imports.test.ts lets the store stand on these two files of src/faults).
 */

// postgres.js's connection errors and Node's socket errors; DATABASE_* are db/gate.ts's.
const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'DATABASE_WAIT_TIMEOUT', 'DATABASE_UNAVAILABLE',
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
// SQLSTATE classes and codes that say "not now" rather than "not this": connection exception (08),
// insufficient resources (53), operator intervention (57P01–57P05: shutdown, cannot connect now),
// a cancelled statement (57014: statement_timeout), serialization failure and
// deadlock (40001, 40P01), lock not available (55P03), system error (58).
const RETRY_LATER_STATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-5]|57014|40001|40P01|55P03|58[0-9A-Z]{3})$/
// Data exceptions (22), integrity violations (23), program limits such as an index row too large
// (54): the database's final answer about the data a statement carried.
const CONTENT_STATE = /^(22|23|54)[0-9A-Z]{3}$/
const SQLSTATE = /^[0-9A-Z]{5}$/

export interface DatabaseFault {
  retry: 'later' | 'final'
  code: string
  /** final because of the data the work carried (CONTENT_STATE): other work may pass where this fails */
  content: boolean
}

/** What one error object's `code` (not its causes') says of the database, or undefined: not the database's. */
export function databaseFaultOf (code: unknown): DatabaseFault | undefined {
  if (typeof code !== 'string') return undefined
  if (CONNECTION_CODES.has(code)) return { retry: 'later', code, content: false }
  if (SQLSTATE.test(code)) return RETRY_LATER_STATE.test(code) ? { retry: 'later', code, content: false } : { retry: 'final', code, content: CONTENT_STATE.test(code) }
  return undefined
}

/** The database blinked (in the error or its causes): the same statement may succeed later. */
export function isDatabaseRetryLater (error: unknown): boolean {
  for (const link of causes(error)) {
    const fault = databaseFaultOf(link.code)
    if (fault) return fault.retry === 'later'
  }
  return false
}
