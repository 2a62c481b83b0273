import { randomFillSync } from 'node:crypto'

// Random bytes are drawn 4 KiB at a time: one call per 400 ids instead of one each (ids are made
// for every message, event and delivery; a call each was 2% of the outbox's CPU).
const pool = Buffer.alloc(4096)
let offset = pool.length

function randomHex (bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const hex = pool.toString('hex', offset, offset + bytes)
  offset += bytes
  return hex
}

/** Prefixed, sortable-enough random ids: `msg_…`, `ws_…`; the prefix tells an operator what an id names. */
export function newId (prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomHex(10)}`
}
