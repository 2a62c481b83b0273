import { audit, type Who } from '../access/audit.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import type { ErasureRecord, ErasureStore } from '../store/erasures.js'
import type { WorkRunner } from '../work/runner.js'
import { COUNTS } from './content-map.js'

export interface ErasureRequest { workspaceId: string, recipient: string, who: Who }

/** Stores the erasure, its job and its audit entry in one transaction: the person's id kept encrypted until it completes. */
export async function requestErasure (erasures: ErasureStore, cipher: TokenCipher, work: Pick<WorkRunner, 'enqueue'>, queue: string, request: ErasureRequest): Promise<ErasureRecord> {
  return await erasures.create(request.workspaceId, cipher.encrypt(request.recipient), async (tx, erasure) => {
    await work.enqueue([{ queue, payload: erasure.id }], tx)
    await audit.record(tx, { ...request.who, workspaceId: request.workspaceId, action: 'erasure.requested', target: { kind: 'erasure', id: erasure.id } })
  })
}

/** E of CONTRACT.md 17. */
export function erasureView (row: ErasureRecord) {
  return {
    id: row.id,
    status: row.status,
    requested_at: row.requestedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
    counts: Object.fromEntries(COUNTS.map(count => [count, row.counts?.[count] ?? 0]))
  }
}

