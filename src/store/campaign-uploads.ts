import { and, eq, gt, lte, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { campaignUploads, type CampaignUploadRecord } from '../../db/schema.js'
import type { NewCampaign, Recipient } from './campaigns.js'
import { newId } from './ids.js'

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0]

/** How long a dashboard upload waits for its confirmation. */
export const UPLOAD_TTL_MS = 60 * 60 * 1000

/** A checked campaign with the recipients to send to (src/campaigns/create.ts's CampaignDraft). */
export interface CampaignDraft { campaign: NewCampaign, recipients: Recipient[] }

export interface CampaignUpload { id: string, userId: string, draft: CampaignDraft, expiresAt: Date }

/**
 * Dashboard CSV uploads awaiting confirmation (CONTRACT.md 15): the checked draft, kept an hour.
 * Each new upload first deletes the expired ones, so the table holds only what may still be confirmed.
 */
export function campaignUploadStore (db: Database) {
  return {
    async save (workspaceId: string, userId: string, draft: CampaignDraft): Promise<CampaignUpload> {
      await db.delete(campaignUploads).where(lte(campaignUploads.expiresAt, sql`now()`))
      const [row] = await db.insert(campaignUploads).values({
        id: newId('cup'),
        workspaceId,
        userId,
        campaign: { ...draft.campaign, sendAt: draft.campaign.sendAt.toISOString() },
        recipients: draft.recipients,
        expiresAt: new Date(Date.now() + UPLOAD_TTL_MS)
      }).returning()
      return toUpload(row)
    },

    /** The upload while it has not expired, in this workspace only. */
    async get (workspaceId: string, id: string): Promise<CampaignUpload | undefined> {
      const [row] = await db.select().from(campaignUploads)
        .where(and(eq(campaignUploads.id, id), eq(campaignUploads.workspaceId, workspaceId), gt(campaignUploads.expiresAt, sql`now()`)))
      return row && toUpload(row)
    },

    /** Deletes the upload in the caller's transaction (the campaign's creation): false when it was gone already (confirmed twice, discarded). */
    async take (tx: Tx | Database, workspaceId: string, id: string): Promise<boolean> {
      const taken = await tx.delete(campaignUploads)
        .where(and(eq(campaignUploads.id, id), eq(campaignUploads.workspaceId, workspaceId), gt(campaignUploads.expiresAt, sql`now()`)))
        .returning({ id: campaignUploads.id })
      return taken.length === 1
    }
  }
}

export type CampaignUploadStore = ReturnType<typeof campaignUploadStore>

function toUpload (row: CampaignUploadRecord): CampaignUpload {
  const campaign = row.campaign as unknown as NewCampaign & { sendAt: string }
  return { id: row.id, userId: row.userId, expiresAt: row.expiresAt, draft: { campaign: { ...campaign, sendAt: new Date(campaign.sendAt) }, recipients: row.recipients } }
}
