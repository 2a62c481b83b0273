import type { Database } from '../../db/client.js'
import { actors, audit } from '../access/audit.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import type { MediaStorage } from '../media/storage.js'
import { isUserId } from '../resources/recipient.js'
import { keepCounts } from '../store/content-purge.js'
import { eraseAudience, eraseCampaignRows, eraseEventBodies, eraseInbound, eraseMessages, eraseUploads, eraseWebhookDeliveries, linkedIds, unusedFiles, type Person } from '../store/erasure.js'
import type { ErasureRecord, ErasureStore } from '../store/erasures.js'
import type { Executor } from '../../db/client.js'
import { emitEvents, type OutboxBell } from '../store/outbox.js'
import { CONTENT_MAP, type EraseStep } from './content-map.js'
import type { Digest } from './opt-out-key.js'
import { noCounts, type Counts } from './purge.js'

export interface EraseDeps {
  db: Database
  erasures: ErasureStore
  cipher: TokenCipher
  storage: Pick<MediaStorage, 'remove'>
  digest: Digest
  outbox: OutboxBell
}

// a chain of linked ids longer than this is followed no further
const MAX_HOPS = 16

/** Everything an erasure's steps share: who, what they found on the way, what they counted. */
interface Erasing { person: Person, messageIds: string[], mediaIds: string[], files: string[], counts: Counts }
type Tx = <T>(work: (tx: Executor) => Promise<T>) => Promise<T>

const STEPS: Record<EraseStep, (erasing: Erasing, inTransaction: Tx) => Promise<void>> = {
  async messages (erasing, inTransaction) {
    for (;;) {
      const batch = await inTransaction(async tx => await eraseMessages(tx, erasing.person))
      erasing.messageIds.push(...batch.ids)
      erasing.mediaIds.push(...batch.mediaIds)
      erasing.counts.messages += batch.ids.length
      if (batch.ids.length === 0) return
    }
  },
  async uploads (erasing, inTransaction) {
    erasing.files.push(...await inTransaction(async tx => await eraseUploads(tx, erasing.person.workspaceId, [...new Set(erasing.mediaIds)])))
  },
  async inbound (erasing, inTransaction) {
    for (;;) {
      const batch = await inTransaction(async tx => await eraseInbound(tx, erasing.person))
      erasing.files.push(...batch.files)
      erasing.counts.inbound += batch.count
      if (batch.count === 0) return
    }
  },
  async campaigns (erasing, inTransaction) {
    erasing.counts.campaign_recipients += await inTransaction(async tx => await eraseCampaignRows(tx, erasing.person))
  },
  async webhook_deliveries (erasing, inTransaction) {
    erasing.counts.webhook_deliveries += await inTransaction(async tx => await eraseWebhookDeliveries(tx, erasing.person))
  },
  async event_deliveries (erasing, inTransaction) {
    erasing.counts.event_deliveries += await inTransaction(async tx => await eraseEventBodies(tx, erasing.person, erasing.messageIds))
  },
  async audience (erasing, inTransaction) {
    await inTransaction(async tx => { await eraseAudience(tx, erasing.person) })
  }
}

/** The steps in the order of CONTENT_MAP: a table's step runs where its table is listed. */
const ORDER = [...new Set(CONTENT_MAP.map(entry => entry.erase))]

/**
 * One person's erasure (CONTRACT.md 17), run to its end: their number and every user id linked to
 * it, then each step in small transactions of its own, then their files; completed with its
 * counts, its audit entry and its `contact.erased` event in one transaction. Safe to run again
 * after a crash: a step finds what is left.
 */
export async function runErasure (deps: EraseDeps, erasureId: string): Promise<ErasureRecord | undefined> {
  const erasure = await deps.erasures.get(erasureId)
  if (!erasure || erasure.status === 'completed' || erasure.target === null) return erasure
  const { workspaceId } = erasure
  const inTransaction: Tx = async work => await deps.db.transaction(async tx => { await keepCounts(tx); return await work(tx) })
  const ids = await identitiesOf(deps.db, workspaceId, deps.cipher.decrypt(erasure.target))
  const person: Person = { workspaceId, ids, digests: Object.fromEntries(ids.map(id => [id, deps.digest(workspaceId, id)])) }
  const erasing: Erasing = { person, messageIds: [], mediaIds: [], files: [], counts: noCounts() }
  for (const step of ORDER) await STEPS[step](erasing, inTransaction)
  const unused = await unusedFiles(deps.db, erasing.files)
  for (const sha256 of unused) await deps.storage.remove(sha256)
  erasing.counts.media_files = unused.length

  const completed = await deps.db.transaction(async tx => {
    const done = await deps.erasures.complete(tx, erasureId, erasing.counts)
    if (!done) return undefined
    await audit.record(tx, { ...actors.system(), workspaceId, action: 'erasure.completed', target: { kind: 'erasure', id: erasureId } })
    const to = ids.find(id => !isUserId(id)) ?? null
    const userId = ids.find(isUserId) ?? null
    await emitEvents(tx, [{ workspaceId, type: 'contact.erased', data: { id: erasureId, to, recipient_user_id: userId, completed_at: done.completedAt!.toISOString() } }])
    return done
  })
  deps.outbox.committed()
  return completed ?? await deps.erasures.get(erasureId)
}

/** The id asked for and every id linked to it, both ways, as far as the links go. */
async function identitiesOf (db: Database, workspaceId: string, target: string): Promise<string[]> {
  const found = new Set([target])
  let frontier = [target]
  for (let hop = 0; hop < MAX_HOPS && frontier.length > 0; hop++) {
    frontier = (await linkedIds(db, workspaceId, frontier)).filter(id => !found.has(id))
    for (const id of frontier) found.add(id)
  }
  return [...found]
}
