import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '../../db/client.js'
import type { MediaStorage } from '../media/storage.js'
import { endedCampaigns, keepCounts, purgeBatch, purgeCampaignRows, type Keyset, type PurgeWindow } from '../store/content-purge.js'
import { unusedFiles } from '../store/erasure.js'
import type { Executor } from '../../db/client.js'
import { CONTENT_MAP, COUNTS, type Count } from './content-map.js'

export type Counts = Record<Count, number>
export const noCounts = (): Counts => Object.fromEntries(COUNTS.map(count => [count, 0])) as Counts

export interface PurgeDeps { db: Database, storage: Pick<MediaStorage, 'remove'> }
export interface PurgeOptions {
  /** content created before this is purged already (the sweep's watermark): the walk starts there */
  from?: Date
  /** the same counts, nothing changed */
  dryRun?: boolean
  /** rows a statement purges: small, so that no statement holds a row a send or a webhook waits for long */
  batch?: number
  /**
   * After each batch, a pause of this many times the batch's own time: the sweep's share of the
   * database stays at 1 / (1 + pause), and sends and webhooks keep the rest. 0 (the CLI's purge,
   * asked for now): no pause.
   */
  pause?: number
}

/** The retention sweep's pause (CONTRACT.md 17: a sweep never holds sends or webhooks back): it runs at half speed. */
export const SWEEP_PAUSE = 1

export const PURGE_BATCH = 200
const ROLLBACK = Symbol('dry run')

/**
 * Purges the workspace's content older than `window.before` (CONTRACT.md 17), table by table as
 * CONTENT_MAP says, in batches of their own transactions; then the files no row holds any more.
 * A dry run does the same in one transaction and rolls it back.
 */
export async function purgeContent (deps: PurgeDeps, window: PurgeWindow, options: PurgeOptions = {}): Promise<Counts> {
  const counts = noCounts()
  const files: string[] = []
  const batch = options.batch ?? PURGE_BATCH
  async function walk (inTransaction: <T>(work: (tx: Executor) => Promise<T>) => Promise<T>): Promise<string[]> {
    for (const entry of CONTENT_MAP) {
      if (!entry.purge || !entry.count) continue
      let after: Keyset | undefined = options.from ? { at: options.from.toISOString(), key: '' } : undefined
      do {
        const started = Date.now()
        const done = await inTransaction(async tx => await purgeBatch(tx, entry.purge!, window, after, batch))
        if (options.pause && done.changed > 0) await sleep((Date.now() - started) * options.pause)
        if (entry.count !== 'media_files') counts[entry.count] += done.changed
        files.push(...done.returned)
        after = done.next
      } while (after)
    }
    for (const campaign of await inTransaction(async tx => await endedCampaigns(tx, window, options.from))) {
      for (let first = 0; first < campaign.rows; first += batch) {
        counts.campaign_recipients += await inTransaction(async tx => await purgeCampaignRows(tx, campaign.id, first, batch))
      }
    }
    return await inTransaction(async tx => await unusedFiles(tx, files))
  }

  if (options.dryRun) {
    await deps.db.transaction(async tx => {
      await keepCounts(tx)
      counts.media_files = (await walk(async work => await work(tx))).length
      throw ROLLBACK
    }).catch(error => { if (error !== ROLLBACK) throw error })
    return counts
  }
  const unused = await walk(async work => await deps.db.transaction(async tx => { await keepCounts(tx); return await work(tx) }))
  for (const sha256 of unused) await deps.storage.remove(sha256)
  counts.media_files = unused.length
  return counts
}
