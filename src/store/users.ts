import { eq } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { users } from '../../db/schema.js'
import { newId } from './ids.js'

export type User = typeof users.$inferSelect

/** Dashboard users. Emails are stored and looked up lower-cased, so one person has one account. */
export function userStore (db: Database) {
  return {
    /** undefined when the email is taken */
    async create (workspaceId: string, email: string, passwordHash: string): Promise<User | undefined> {
      const [row] = await db.insert(users).values({ id: newId('usr'), workspaceId, email: normalizeEmail(email), passwordHash })
        .onConflictDoNothing().returning()
      return row
    },

    async byEmail (email: string): Promise<User | undefined> {
      const [row] = await db.select().from(users).where(eq(users.email, normalizeEmail(email)))
      return row
    },

    async setPassword (id: string, passwordHash: string): Promise<void> {
      await db.update(users).set({ passwordHash }).where(eq(users.id, id))
    },

    /** A workspace's users by id, with their email: for pages that name who did something. */
    async emailsIn (workspaceId: string): Promise<Map<string, string>> {
      const rows = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.workspaceId, workspaceId))
      return new Map(rows.map(row => [row.id, row.email]))
    },

    async recordLogin (id: string): Promise<void> {
      await db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, id))
    }
  }
}

export type UserStore = ReturnType<typeof userStore>

export function normalizeEmail (email: string): string {
  return email.trim().toLowerCase()
}
