import { and, asc, eq, sql } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { connections, phoneNumbers } from '../../db/schema.js'
import type { UpstreamPhoneNumber } from '../upstream/types.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import { newId } from './ids.js'
import type { ReadCache } from './read-cache.js'

export type Connection = typeof connections.$inferSelect
export type PhoneNumber = typeof phoneNumbers.$inferSelect
export interface ActiveConnection { connection: Connection, numbers: PhoneNumber[] }

export function connectionStore (db: Database, cache: ReadCache) {
  async function numbersOf (connectionId: string): Promise<PhoneNumber[]> {
    return await db.select().from(phoneNumbers).where(eq(phoneNumbers.connectionId, connectionId)).orderBy(asc(phoneNumbers.position))
  }

  return {
    /** Stores a new active connection with its numbers in the upstream's order, retiring the workspace's previous one. */
    async replace (workspaceId: string, wabaId: string, encryptedToken: string, numbers: UpstreamPhoneNumber[], also?: AlsoInTransaction<ActiveConnection>): Promise<ActiveConnection> {
      const replaced = await db.transaction(async tx => {
        await tx.update(connections).set({ status: 'inactive', updatedAt: new Date() })
          .where(and(eq(connections.workspaceId, workspaceId), eq(connections.status, 'active')))
        const [connection] = await tx.insert(connections)
          .values({ id: newId('conn'), workspaceId, wabaId, accessToken: encryptedToken, status: 'active' }).returning()
        const rows = numbers.length === 0 ? [] : await tx.insert(phoneNumbers).values(numbers.map((number, position) => ({
          id: newId('pn'), connectionId: connection.id, workspaceId, position, ...numberFields(number)
        }))).returning()
        await also?.(tx, { connection, numbers: rows })
        return { connection, numbers: rows }
      })
      await cache.changed()
      return replaced
    },

    /**
     * From the read cache, shared by every request of the workspace: never to be mutated. "No
     * connection" is kept too (only workspaces behind a valid key get here), since connecting calls
     * changed() and so drops it before the next send.
     */
    async active (workspaceId: string): Promise<ActiveConnection | undefined> {
      return await cache.read(`active:${workspaceId}`, async () => {
        const [connection] = await db.select().from(connections)
          .where(and(eq(connections.workspaceId, workspaceId), eq(connections.status, 'active')))
        return connection ? { connection, numbers: await numbersOf(connection.id) } : undefined
      })
    },

    /** False when the workspace had no active connection (and then `also` does not run). */
    async deactivate (workspaceId: string, also?: AlsoInTransaction<Connection>): Promise<boolean> {
      const deactivated = await changeWith(db, async on => (await on.update(connections).set({ status: 'inactive', updatedAt: new Date() })
        .where(and(eq(connections.workspaceId, workspaceId), eq(connections.status, 'active'))).returning())[0], also)
      await cache.changed()
      return deactivated !== undefined
    },

    async recordWebhookRegistration (connectionId: string, error: string | null): Promise<void> {
      await db.update(connections).set({ webhookRegistered: error === null, webhookError: error, updatedAt: new Date() })
        .where(eq(connections.id, connectionId))
      await cache.changed()
    },

    /** Active connections whose webhook registration has not succeeded yet. */
    async unregistered (): Promise<Connection[]> {
      return await db.select().from(connections)
        .where(and(eq(connections.status, 'active'), eq(connections.webhookRegistered, false)))
    },

    async allActive (): Promise<Connection[]> {
      return await db.select().from(connections).where(eq(connections.status, 'active'))
    },

    async numbersOf (connectionId: string): Promise<PhoneNumber[]> {
      return await numbersOf(connectionId)
    },

    async activeByWaba (wabaId: string): Promise<Connection[]> {
      return await db.select().from(connections).where(and(eq(connections.wabaId, wabaId), eq(connections.status, 'active')))
    },

    /** The active number with this upstream id, with its workspace: how webhooks are routed. */
    async activeNumber (phoneNumberId: string): Promise<PhoneNumber | undefined> {
      const [row] = await db.select({ number: phoneNumbers }).from(phoneNumbers)
        .innerJoin(connections, eq(connections.id, phoneNumbers.connectionId))
        .where(and(eq(phoneNumbers.phoneNumberId, phoneNumberId), eq(connections.status, 'active')))
      return row?.number
    },

    async updateNumber (id: string, number: UpstreamPhoneNumber): Promise<void> {
      const fields = numberFields(number)
      // The most recent information wins: a tier webhook is newer than a node that still says what
      // it said at the last read (the node lags behind the webhook), but a node that changed is newer.
      const tier = sql`case when ${fields.messagingLimitTierNode}::text is distinct from ${phoneNumbers.messagingLimitTierNode} then ${fields.messagingLimitTierNode}::text else ${phoneNumbers.messagingLimitTier} end`
      await db.update(phoneNumbers).set({ ...fields, messagingLimitTier: tier, updatedAt: new Date() }).where(eq(phoneNumbers.id, id))
      await cache.changed()
    }
  }
}

function numberFields (number: UpstreamPhoneNumber) {
  return {
    phoneNumberId: number.id,
    displayPhoneNumber: number.display_phone_number,
    verifiedName: number.verified_name ?? null,
    qualityRating: number.quality_rating ?? null,
    throughputLevel: number.throughput?.level ?? null,
    messagingLimitTier: number.whatsapp_business_manager_messaging_limit ?? number.messaging_limit_tier ?? null,
    messagingLimitTierNode: number.whatsapp_business_manager_messaging_limit ?? number.messaging_limit_tier ?? null
  }
}

export type ConnectionStore = ReturnType<typeof connectionStore>
