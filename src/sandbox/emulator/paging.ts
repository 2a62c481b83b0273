import { GraphError, invalidParameter } from './graph-error.js'
import type { Json } from './json.js'

const CURSOR_PREFIX = 'emulator-cursor:'

export interface PageQuery { limit?: unknown, after?: unknown, before?: unknown }

/** Cursor paging as Graph does it: `next` (absolute URL) only while more items follow. */
export function paginate<T> (items: T[], query: PageQuery, pageUrl: (cursor: { after?: string, before?: string }, limit: number) => string): Json {
  const limit = parseLimit(query.limit)
  const { start, end } = pageBounds(query, limit)
  const data = items.slice(start, end)
  if (data.length === 0) return { data }
  const cursors = { before: encodeCursor(start), after: encodeCursor(start + data.length - 1) }
  const paging: Json = { cursors }
  if (start > 0) paging.previous = pageUrl({ before: cursors.before }, limit)
  if (start + data.length < items.length) paging.next = pageUrl({ after: cursors.after }, limit)
  return { data, paging }
}

function pageBounds (query: PageQuery, limit: number): { start: number, end: number } {
  if (query.after === undefined && query.before !== undefined) {
    const end = decodeCursor(query.before)
    return { start: Math.max(0, end - limit), end }
  }
  const start = query.after === undefined ? 0 : decodeCursor(query.after) + 1
  return { start, end: start + limit }
}

function parseLimit (value: unknown): number {
  if (value === undefined) return 25
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1) throw invalidParameter('Param limit must be a positive integer.')
  return limit
}

function encodeCursor (index: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${index}`).toString('base64url')
}

function decodeCursor (cursor: unknown): number {
  const decoded = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString() : ''
  const index = Number(decoded.slice(CURSOR_PREFIX.length))
  if (!decoded.startsWith(CURSOR_PREFIX) || !Number.isInteger(index) || index < 0) {
    throw new GraphError(100, { details: 'The cursor is invalid or has expired.' })
  }
  return index
}

export function pageUrlFor (origin: string, url: string): (cursor: { after?: string, before?: string }, limit: number) => string {
  return function pageUrl (cursor, limit) {
    const next = new URL(url, origin)
    next.searchParams.delete('after')
    next.searchParams.delete('before')
    next.searchParams.set('limit', String(limit))
    if (cursor.after) next.searchParams.set('after', cursor.after)
    if (cursor.before) next.searchParams.set('before', cursor.before)
    return next.toString()
  }
}
