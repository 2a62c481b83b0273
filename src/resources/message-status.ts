import { MESSAGE_STATUSES, type MessageStatus } from '../../db/schema.js'

// The statuses themselves are the column's type (db/schema.ts, the floor); here, for everyone above
// it, what they mean together: which are open, the upstream's ladder, and the order of a message's life.
export { MESSAGE_STATUSES, type MessageStatus }

/** Not ended yet: a synchronous send's record, a queued send's hand-over, its slot granted (CONTRACT.md 9). */
export const OPEN_STATUSES = ['pending', 'queued', 'sending'] as const satisfies readonly MessageStatus[]

/** What the upstream reports once it accepted a message, in order: each step implies those before it (a read message was delivered). */
export const REACHED_STATUSES = ['sent', 'delivered', 'read'] as const satisfies readonly MessageStatus[]
export type ReachedStatus = typeof REACHED_STATUSES[number]

export const isOpen = (status: string): boolean => (OPEN_STATUSES as readonly string[]).includes(status)

/** 1 for sent, 2 delivered, 3 read; 0 for any other status. */
export const reachedRank = (status: string): number => (REACHED_STATUSES as readonly string[]).indexOf(status) + 1

// Where a status stands in a message's life: our first steps, the upstream's ladder, any other
// status the upstream reports, failed last. What ties in time is told in this order.
const LIFE: Record<string, number> = { queued: 0, pending: 0, sending: 1, sent: 2, delivered: 3, read: 4, failed: 6 }
export const lifeRank = (status: string): number => LIFE[status] ?? 5

/** Statuses as SQL literals for a statement written out (`'pending', 'queued', 'sending'`): names of ours, never input. */
export const sqlStatuses = (statuses: readonly MessageStatus[]): string => statuses.map(status => `'${status}'`).join(', ')

/** `case` arms giving a status column its reachedRank in SQL: `when c = 'sent' then 1 …`. */
export const sqlReachedRank = (column: string): string => REACHED_STATUSES.map((status, index) => `when ${column} = '${status}' then ${index + 1}`).join(' ')
