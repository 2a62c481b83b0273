import { routeNumbers } from '../store/inbound.js'
import { insertRelayDeliveries, targetsOfWabas, type NewRelayDelivery } from '../store/relays.js'
import type { ReceivedDelivery } from '../webhooks/delivery.js'
import { idString, isObject } from '../webhooks/payload.js'
import type { Transaction } from '../work/runner.js'
import { listOf, numberOf, shareOf } from './split.js'

/**
 * The relay deliveries of an inbox batch, in its transaction (CONTRACT.md 18): each target of each
 * workspace whose WABA an entry names gets its share of each delivery. Two lookups when no
 * workspace of the batch has a target (one, the targets', usually finds none); returns how many.
 */
export async function relayReceived (tx: Transaction, received: ReceivedDelivery[]): Promise<number> {
  const wabas = new Set<string>()
  const numbers = new Set<string>()
  for (const delivery of received) {
    for (const entry of listOf(delivery.body.entry)) {
      const wabaId = isObject(entry) ? idString(entry.id) : undefined
      if (wabaId === undefined) continue
      wabas.add(wabaId)
      for (const change of listOf((entry as { changes?: unknown }).changes)) {
        const number = numberOf(change)
        if (number !== undefined) numbers.add(number)
      }
    }
  }
  const targets = await targetsOfWabas(tx, [...wabas])
  if (targets.length === 0) return 0
  const routes = await routeNumbers(tx, [...numbers])
  const rows: NewRelayDelivery[] = []
  for (const delivery of received) {
    for (const target of targets) {
      const body = shareOf(delivery, target, routes)
      if (body) rows.push({ relayId: target.id, workspaceId: target.workspaceId, inboxDeliveryId: delivery.jobId, body })
    }
  }
  return await insertRelayDeliveries(tx, rows)
}
