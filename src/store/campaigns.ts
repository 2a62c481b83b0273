import { and, desc, eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../../db/client.js'
import { campaignRecipients, campaigns, type CampaignRecord, type CampaignStatus } from '../../db/schema.js'
import { campaignCounts, campaignView, type CampaignCounts, type MessageTally } from '../resources/campaign.js'
import { OPEN_STATUSES, sqlStatuses } from '../resources/message-status.js'
import type { AlsoInTransaction } from './also.js'
import { anyOf } from './any-of.js'
import { newId } from './ids.js'
import { createBatcher } from './batcher.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'
import { emitEvents, type OutboxBell } from './outbox.js'
import { CAMPAIGN_SENDS } from '../work/send-queues.js'

export { CAMPAIGN_SENDS } from '../work/send-queues.js'

/** The statuses in which a campaign's messages are dispatched. */
export const DISPATCHING: readonly CampaignStatus[] = ['running', 'waiting_for_limit']

export type Recipient = { to: string, variables: string[] | Record<string, string> | null, clientReference: string | null }
export type NewCampaign = Pick<CampaignRecord, 'id' | 'workspaceId' | 'apiKeyId' | 'name' | 'template' | 'language' | 'category' | 'phoneNumberId' | 'sendAt' | 'rejected' | 'skipped' | 'rejections'>

/** A campaign message before it is written: what the lane builds from a recipient. */
export interface CampaignMessage { id: string, recipient: string, payload: Record<string, unknown>, clientReference: string | null }

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0]

// Recipients are written this many to a statement: one JSON parameter each, a few MB at most.
const INSERT_CHUNK = 5000

/** How a recipient becomes its message (src/campaigns/payload.ts): the lane passes it to `materialise`, a cancel uses it for the rest. */
export type BuildMessage = (campaign: CampaignRecord, recipient: Recipient) => CampaignMessage

/** Campaigns (CONTRACT.md 15): their rows, their recipients, the message records made from them, and their counts. */
export function campaignStore (db: Database, { build, outbox }: { build: BuildMessage, outbox: OutboxBell }) {
  const withCounts = campaignWithCounts

  // Claims at their slots share one statement: at a campaign's rate one update each would crowd out every other query.
  const claims = createBatcher(async (batch: Array<{ id: string, dispatcherId: string }>) => {
    const result = await db.execute(sql`update messages set status = 'sending', dispatcher_id = ${batch[0].dispatcherId}, updated_at = now()
      where id = ${anyOf(batch.map(item => item.id))} and status = 'queued'
        and exists (select 1 from campaigns c where c.id = messages.campaign_id and c.status in ('running', 'waiting_for_limit'))
      returning id`)
    const taken = new Set(rowsOf<{ id: string }>(result).map(row => row.id))
    return batch.map(item => taken.has(item.id))
  }, { maxBatch: 100 })

  async function lock (tx: Tx, campaignId: string): Promise<CampaignRecord | undefined> {
    const [row] = await tx.select().from(campaigns).where(eq(campaigns.id, campaignId)).for('update')
    return row
  }

  /** Ends the campaign `completed` with its event, in the caller's transaction. */
  async function complete (tx: Tx, campaign: CampaignRecord): Promise<void> {
    const [done] = await tx.update(campaigns).set({ status: 'completed', completedAt: new Date(), updatedAt: new Date() })
      .where(eq(campaigns.id, campaign.id)).returning()
    const { counts } = await withCounts(tx, done)
    await emitEvents(tx, [{ workspaceId: done.workspaceId, type: 'campaign.completed', data: campaignView(done, counts) }])
  }

  return {
    /**
     * The campaign and its recipients in one transaction, a few thousand rows per statement. With
     * none to send to it is completed at once (and says so with its event).
     */
    async create (campaign: NewCampaign, recipients: Recipient[], also?: AlsoInTransaction<CampaignRecord>): Promise<CampaignRecord> {
      const status: CampaignStatus = recipients.length === 0 ? 'completed' : campaign.sendAt.getTime() > Date.now() ? 'scheduled' : 'running'
      const created = await db.transaction(async tx => {
        const [row] = await tx.insert(campaigns).values({ ...campaign, status, accepted: recipients.length, ...(status === 'completed' && { completedAt: new Date() }) }).returning()
        for (let start = 0; start < recipients.length; start += INSERT_CHUNK) {
          const rows = recipients.slice(start, start + INSERT_CHUNK).map((recipient, index) => ({ n: start + index, to: recipient.to, v: recipient.variables, r: recipient.clientReference }))
          await tx.execute(sql`insert into campaign_recipients (campaign_id, n, recipient, variables, client_reference)
            select ${row.id}, v.n, v.to, v.v::jsonb, v.r from json_to_recordset(${JSON.stringify(rows)}::json) as v(n integer, "to" text, v json, r text)`)
        }
        if (status === 'completed') await complete(tx, row)
        await also?.(tx, row)
        return row
      })
      if (status === 'completed') outbox.committed()
      return created
    },

    /** Any workspace's campaign (the operator's command line). */
    async find (id: string): Promise<{ campaign: CampaignRecord, counts: CampaignCounts } | undefined> {
      const [row] = await db.select().from(campaigns).where(eq(campaigns.id, id))
      return row ? await withCounts(db, row) : undefined
    },

    async get (workspaceId: string, id: string): Promise<{ campaign: CampaignRecord, counts: CampaignCounts } | undefined> {
      const [row] = await db.select().from(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId)))
      return row ? await withCounts(db, row) : undefined
    },

    /** The number the workspace's campaign sends from; undefined when there is no such campaign. */
    async numberOf (workspaceId: string, id: string): Promise<string | undefined> {
      const [row] = await db.select({ phoneNumberId: campaigns.phoneNumberId }).from(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId)))
      return row?.phoneNumberId
    },

    /** Newest first, by the keyset (created_at, id); undefined when `after` names no campaign of the workspace. */
    async page (workspaceId: string, options: { limit: number, after?: string }): Promise<{ rows: Array<{ campaign: CampaignRecord, counts: CampaignCounts }>, more: boolean } | undefined> {
      const conditions = [eq(campaigns.workspaceId, workspaceId)]
      if (options.after) {
        const [anchor] = await db.select({ at: sql<string>`${campaigns.createdAt}::text` }).from(campaigns)
          .where(and(eq(campaigns.id, options.after), eq(campaigns.workspaceId, workspaceId)))
        if (!anchor) return undefined
        conditions.push(sql`(${campaigns.createdAt}, ${campaigns.id}) < (${anchor.at}::timestamptz, ${options.after})`)
      }
      const rows = await db.select().from(campaigns).where(and(...conditions)).orderBy(desc(campaigns.createdAt), desc(campaigns.id)).limit(options.limit + 1)
      const page = await Promise.all(rows.slice(0, options.limit).map(async row => await withCounts(db, row)))
      return { rows: page, more: rows.length > options.limit }
    },

    /** Why its failed messages failed: error code and how many. */
    async failureReasons (campaignId: string): Promise<Array<{ code: string, text: string | null, count: number }>> {
      const result = await db.execute(sql`select error_code, min(error_text) as error_text, count(*)::int as n from messages
        where campaign_id = ${campaignId} and status = 'failed' and error_code is distinct from 'cancelled' group by error_code order by n desc limit 20`)
      return rowsOf<{ error_code: string | null, error_text: string | null, n: number }>(result).map(row => ({ code: row.error_code ?? 'unknown', text: row.error_text, count: Number(row.n) }))
    },

    /**
     * pause (running or waiting → paused; scheduled → paused), resume (paused → running or
     * scheduled), cancel (anything not ended → cancelled, its queued messages failed `cancelled`;
     * then its recipients not yet made into messages are made into `cancelled` ones, so that every
     * recipient has its message: ?campaign_id= lists them all).
     * undefined: no such campaign; 'conflict': not possible from its status (it is returned as it is).
     */
    async act (workspaceId: string, id: string, action: 'pause' | 'resume' | 'cancel', also?: AlsoInTransaction<CampaignRecord>): Promise<{ campaign: CampaignRecord, changed: boolean } | undefined> {
      const acted = await db.transaction(async tx => {
        const [current] = await tx.select().from(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.workspaceId, workspaceId))).for('update')
        if (!current) return undefined
        // a person's pause of a campaign the guard paused makes it theirs: it no longer resumes by itself
        const takenOver = action === 'pause' && current.status === 'paused' && current.pausedReason !== 'manual'
        const next = takenOver ? 'paused' : transition(current, action)
        if (next === undefined) return { campaign: current, changed: false }
        const [row] = await tx.update(campaigns).set({ status: next, updatedAt: new Date(), ...byHand(action) }).where(eq(campaigns.id, id)).returning()
        if (next === 'cancelled') {
          await tx.execute(sql`update messages set status = 'failed', error_code = ${CANCELLED.code}, error_text = ${CANCELLED.text}, failed_at = now(), updated_at = now()
            where campaign_id = ${id} and status = 'queued'`)
        }
        if (action === 'resume') await requeueOrphans(tx, row)
        await also?.(tx, row)
        return { campaign: row, changed: true }
      })
      // every recipient gets its message, a chunk per transaction; asked again, a cancel finishes what one cut short left
      if (action === 'cancel' && acted?.campaign.status === 'cancelled') {
        let made: number
        do made = await cancelUnmade(db, id, build); while (made > 0)
      }
      return acted
    },

    /** The numbers with a campaign to work on: running, waiting for the limit, or scheduled and due. */
    async liveNumbers (): Promise<string[]> {
      const result = await db.execute(sql`select distinct phone_number_id from campaigns
        where status in ('running', 'waiting_for_limit') or (status = 'scheduled' and send_at <= now())`)
      return rowsOf<{ phone_number_id: string }>(result).map(row => row.phone_number_id)
    },

    /** The number's campaigns to work on, oldest first; scheduled ones that are due start running. */
    async liveOn (phoneNumberId: string): Promise<CampaignRecord[]> {
      await db.execute(sql`update campaigns set status = 'running', updated_at = now() where phone_number_id = ${phoneNumberId} and status = 'scheduled' and send_at <= now()`)
      return await db.select().from(campaigns)
        .where(and(eq(campaigns.phoneNumberId, phoneNumberId), sql`${campaigns.status} in ('running', 'waiting_for_limit')`))
        .orderBy(campaigns.createdAt, campaigns.id)
    },

    /**
     * Makes the campaign's next `limit` recipients into queued message records with their jobs, in
     * one transaction under the campaign's row lock (so two processes never make the same
     * recipient twice). 0 when it is not dispatching or has no recipient left.
     */
    async materialise (campaignId: string, limit: number, build: (campaign: CampaignRecord, recipient: Recipient) => CampaignMessage): Promise<number> {
      const made = await db.transaction(async tx => {
        const campaign = await lock(tx, campaignId)
        if (!campaign || !DISPATCHING.includes(campaign.status) || campaign.materialised >= campaign.accepted) return 0
        const recipients = await tx.select().from(campaignRecipients)
          .where(and(eq(campaignRecipients.campaignId, campaignId), sql`${campaignRecipients.n} >= ${campaign.materialised}`))
          .orderBy(campaignRecipients.n).limit(limit)
        if (recipients.length === 0) return 0
        // a person erased before their row became a message (CONTRACT.md 17: their row lost its number) is never sent to
        const erased = recipients.filter(row => row.recipient === '')
        const rows = recipients.filter(row => row.recipient !== '').map(row => {
          const message = build(campaign, { to: row.recipient, variables: row.variables, clientReference: row.clientReference })
          return { id: message.id, to: message.recipient, p: message.payload, r: message.clientReference }
        })
        if (rows.length > 0) {
          await tx.execute(sql`insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, status, client_reference, campaign_id)
            select v.id, ${campaign.workspaceId}, ${campaign.apiKeyId}, ${campaign.phoneNumberId}, v.to, 'template', v.p::jsonb, 'queued', v.r, ${campaign.id}
            from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, "to" text, p json, r text)`)
          await jobSql.enqueue(tx, rows.map(row => ({ queue: CAMPAIGN_SENDS, groupKey: campaign.phoneNumberId, payload: row.id })))
        }
        if (erased.length > 0) {
          await tx.execute(sql`insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, status, error_code, error_text, failed_at, campaign_id, erased, content_purged_at)
            select v.id, ${campaign.workspaceId}, ${campaign.apiKeyId}, ${campaign.phoneNumberId}, '', 'template', '{}'::jsonb, 'failed', ${ERASED.code}, ${ERASED.text}, now(), ${campaign.id}, true, now()
            from json_to_recordset(${JSON.stringify(erased.map(() => ({ id: newId('msg') })))}::json) as v(id text)`)
        }
        await tx.update(campaigns).set({ materialised: campaign.materialised + recipients.length, updatedAt: new Date() }).where(eq(campaigns.id, campaignId))
        return recipients.length
      })
      return made
    },

    /** Gives a job back to the campaign's queued messages that lost theirs (withdrawn while it was paused). */
    async requeueOrphans (campaignId: string): Promise<number> {
      return await db.transaction(async tx => {
        const campaign = await lock(tx, campaignId)
        return campaign && DISPATCHING.includes(campaign.status) ? await requeueOrphans(tx, campaign) : 0
      })
    },

    /** Completed (with its event, in the same transaction) once every recipient has a message and none waits or is under way. */
    async completeIfDone (campaignId: string): Promise<boolean> {
      const done = await db.transaction(async tx => {
        const campaign = await lock(tx, campaignId)
        if (!campaign || !DISPATCHING.includes(campaign.status) || campaign.materialised < campaign.accepted) return false
        const result = await tx.execute(sql`select exists (select 1 from messages where campaign_id = ${campaignId}
          and status in (${sql.raw(sqlStatuses(OPEN_STATUSES))})) as busy`)
        if (rowsOf<{ busy: boolean }>(result)[0].busy) return false
        await complete(tx, campaign)
        return true
      })
      if (done) outbox.committed()
      return done
    },

    /** running ⇄ waiting_for_limit, as the messaging limit holds the campaign's messages or lets them go. */
    async setWaiting (campaignId: string, waiting: boolean): Promise<void> {
      const [from, to] = waiting ? ['running', 'waiting_for_limit'] : ['waiting_for_limit', 'running']
      await db.execute(sql`update campaigns set status = ${to}, updated_at = now() where id = ${campaignId} and status = ${from}`)
    },

    /** The record moves to `sending` under this process only while its campaign is dispatching: a pause stops it at its slot. */
    async claim (messageId: string, dispatcherId: string): Promise<boolean> {
      return await claims({ id: messageId, dispatcherId })
    }
  }
}

export type CampaignStore = ReturnType<typeof campaignStore>

/**
 * What a person's action leaves of the guard's state (CONTRACT.md 21): a pause is `manual`; a resume
 * holds until the next signal, so the failure rate counts afresh from now.
 */
function byHand (action: 'pause' | 'resume' | 'cancel'): Partial<CampaignRecord> {
  if (action === 'pause') return { pausedReason: 'manual', resumeAfter: null }
  if (action === 'resume') return { pausedReason: null, resumeAfter: null, guardSince: new Date() }
  return { pausedReason: null, resumeAfter: null }
}

function transition (campaign: CampaignRecord, action: 'pause' | 'resume' | 'cancel'): CampaignStatus | undefined {
  const ended = campaign.status === 'completed' || campaign.status === 'cancelled'
  if (ended) return undefined
  if (action === 'cancel') return 'cancelled'
  if (action === 'pause') return campaign.status === 'paused' ? undefined : 'paused'
  if (campaign.status !== 'paused') return undefined
  return campaign.sendAt.getTime() > Date.now() ? 'scheduled' : 'running'
}

async function tally (executor: Executor, campaignId: string): Promise<MessageTally[]> {
  const result = await executor.execute(sql`select status, coalesce(error_code = 'cancelled', false) as cancelled, count(*)::int as n
    from messages where campaign_id = ${campaignId} group by 1, 2`)
  return rowsOf<{ status: string, cancelled: boolean, n: number }>(result).map(row => ({ status: row.status, cancelled: row.cancelled, count: Number(row.n) }))
}

/** The campaign with its counts read in `executor` (a transaction sees its own changes). */
export async function campaignWithCounts (executor: Executor, campaign: CampaignRecord): Promise<{ campaign: CampaignRecord, counts: CampaignCounts }> {
  return { campaign, counts: campaignCounts(campaign, await tally(executor, campaign.id)) }
}

/** How a campaign message ends whose person was erased before it was made (CONTRACT.md 17). */
const ERASED = { code: 'recipient_erased', text: 'Not sent: the recipient was erased before this campaign message was made' }

/** How a cancelled campaign's unsent messages end. */
const CANCELLED = { code: 'cancelled', text: 'Not sent: its campaign was cancelled' }

/**
 * The next chunk of a cancelled campaign's recipients not yet made into messages become messages
 * failed `cancelled`, without jobs, in a transaction of their own under the campaign's row lock (a
 * transaction each keeps a cancel of 100,000 from holding them all at once). How many were made.
 */
async function cancelUnmade (db: Database, campaignId: string, build: BuildMessage): Promise<number> {
  return await db.transaction(async tx => {
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, campaignId)).for('update')
    if (!campaign || campaign.status !== 'cancelled' || campaign.materialised >= campaign.accepted) return 0
    const recipients = await tx.select().from(campaignRecipients)
      .where(and(eq(campaignRecipients.campaignId, campaignId), sql`${campaignRecipients.n} >= ${campaign.materialised}`))
      .orderBy(campaignRecipients.n).limit(INSERT_CHUNK)
    const rows = recipients.map(row => {
      const message = build(campaign, { to: row.recipient, variables: row.variables, clientReference: row.clientReference })
      return { id: message.id, to: message.recipient, p: message.payload, r: message.clientReference }
    })
    if (rows.length > 0) {
      await tx.execute(sql`insert into messages (id, workspace_id, api_key_id, phone_number_id, recipient, type, payload, status, error_code, error_text, failed_at, client_reference, campaign_id)
        select v.id, ${campaign.workspaceId}, ${campaign.apiKeyId}, ${campaign.phoneNumberId}, v.to, 'template', v.p::jsonb, 'failed', ${CANCELLED.code}, ${CANCELLED.text}, now(), v.r, ${campaign.id}
        from json_to_recordset(${JSON.stringify(rows)}::json) as v(id text, "to" text, p json, r text)`)
    }
    // none left to read (fewer rows than accepted): nothing more to make
    const materialised = rows.length === 0 ? campaign.accepted : campaign.materialised + rows.length
    await tx.update(campaigns).set({ materialised }).where(eq(campaigns.id, campaignId))
    return rows.length
  })
}

/** Gives a job back to the campaign's queued messages that lost theirs (withdrawn while it was paused), in the caller's transaction. */
export async function requeueOrphans (tx: Executor, campaign: CampaignRecord): Promise<number> {
  const result = await tx.execute(sql`select m.id from messages m where m.campaign_id = ${campaign.id} and m.status = 'queued'
    and ${jobSql.noJob(CAMPAIGN_SENDS, sql`m.phone_number_id`, sql`m.id`)}
    order by m.created_at, m.id limit 5000`)
  const ids = rowsOf<{ id: string }>(result).map(row => row.id)
  await jobSql.enqueue(tx, ids.map(id => ({ queue: CAMPAIGN_SENDS, groupKey: campaign.phoneNumberId, payload: id })))
  return ids.length
}
