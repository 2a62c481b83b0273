import { randomBytes } from 'node:crypto'

/** Prefixed, sortable-enough random ids: `msg_…`, `ws_…`; the prefix tells an operator what an id names. */
export function newId (prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(10).toString('hex')}`
}
