import type { ConnectDeps } from './connect.js'
import { syncTemplates } from './connect.js'

type RefreshDeps = Pick<ConnectDeps, 'stores' | 'cipher' | 'upstream'>

/** Re-reads quality, throughput level and messaging tier of every number of the WABA's active connections. */
export async function refreshNumbers (deps: RefreshDeps, wabaId: string): Promise<number> {
  let refreshed = 0
  for (const connection of await deps.stores.connections.activeByWaba(wabaId)) {
    const token = deps.cipher.decrypt(connection.accessToken)
    for (const number of await deps.stores.connections.numbersOf(connection.id)) {
      await deps.stores.connections.updateNumber(number.id, await deps.upstream.getPhoneNumber(number.phoneNumberId, token))
      refreshed++
    }
  }
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
