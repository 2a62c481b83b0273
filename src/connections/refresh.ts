import { limitOfNumbers } from '../audience/tiers.js'
import type { ConnectDeps } from './connect.js'
import { syncTemplates } from './connect.js'

type RefreshDeps = Pick<ConnectDeps, 'stores' | 'cipher' | 'upstream'>

/** Each number's quality rating as stored before the read and as read (the quality guard's signal, CONTRACT.md 21). */
export type OnRatings = (reads: Array<{ phoneNumberId: string, before: string | null, after: string | null }>) => Promise<unknown>

/**
 * Re-reads quality, throughput level and messaging tier of every number of the WABA's active
 * connections. A higher limit frees slots: the sends it held go now (CONTRACT.md 14).
 */
export async function refreshNumbers (deps: RefreshDeps, wabaId: string, onRatings?: OnRatings): Promise<number> {
  let refreshed = 0
  const reads: Parameters<OnRatings>[0] = []
  for (const connection of await deps.stores.connections.activeByWaba(wabaId)) {
    const token = deps.cipher.decrypt(connection.accessToken)
    const numbers = await deps.stores.connections.numbersOf(connection.id)
    for (const number of numbers) {
      const read = await deps.upstream.getPhoneNumber(number.phoneNumberId, token)
      await deps.stores.connections.updateNumber(number.id, read)
      reads.push({ phoneNumberId: number.phoneNumberId, before: number.qualityRating, after: read.quality_rating ?? null })
      refreshed++
    }
    const before = limitOfNumbers(numbers.map(number => number.messagingLimitTier))
    const after = limitOfNumbers((await deps.stores.connections.numbersOf(connection.id)).map(number => number.messagingLimitTier))
    if (before !== null && (after === null || after > before)) await deps.stores.holds.releaseLimit(wabaId)
  }
  await onRatings?.(reads)
  return refreshed
}

/** Template sync for every active connection; one failing WABA does not stop the others. */
export async function syncAllTemplates (deps: RefreshDeps, onError: (wabaId: string, error: unknown) => void): Promise<number> {
  let synced = 0
  for (const connection of await deps.stores.connections.allActive()) {
    try {
      synced += await syncTemplates(deps, connection)
    } catch (error) {
      onError(connection.wabaId, error)
    }
  }
  return synced
}
