import { createHash, randomBytes } from 'node:crypto'
import { and, eq, gt, lte } from 'drizzle-orm'
import type { Database } from '../../db/client.js'
import { sessions, users, workspaces } from '../../db/schema.js'
import { changeWith, type AlsoInTransaction } from './also.js'
import type { Workspace } from './workspaces.js'

export type Session = typeof sessions.$inferSelect

/** A signed-in request: the session, its user and the one workspace that user may see. */
export interface SessionContext {
  session: Session
  user: { id: string, email: string, workspaceId: string }
  workspace: Workspace
}

/** Dashboard sessions. Only the SHA-256 of the cookie's token is stored: a leaked table opens nothing. */
export function sessionStore (db: Database) {
  return {
    /** A new session (and `also`, in its transaction); the returned token goes into the cookie and is never stored. */
    async create (userId: string, expiresAt: Date, also?: AlsoInTransaction<Session>): Promise<{ token: string, session: Session }> {
      const token = randomBytes(32).toString('base64url')
      const session = await changeWith(db, async on => (await on.insert(sessions)
        .values({ id: sessionId(token), userId, csrfToken: randomBytes(32).toString('base64url'), expiresAt }).returning())[0], also)
      return { token, session: session! }
    },

    /** The live session this token opens, with its user and workspace; undefined when unknown or expired. */
    async find (token: string): Promise<SessionContext | undefined> {
      const [row] = await db.select({ session: sessions, user: { id: users.id, email: users.email, workspaceId: users.workspaceId }, workspace: workspaces })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .innerJoin(workspaces, eq(workspaces.id, users.workspaceId))
        .where(and(eq(sessions.id, sessionId(token)), gt(sessions.expiresAt, new Date())))
      return row
    },

    async extend (id: string, expiresAt: Date): Promise<void> {
      await db.update(sessions).set({ expiresAt }).where(eq(sessions.id, id))
    },

    async delete (token: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.id, sessionId(token)))
    },

    /** Housekeeping: expired rows open nothing, they only take space. */
    async deleteExpired (): Promise<number> {
      const rows = await db.delete(sessions).where(lte(sessions.expiresAt, new Date())).returning({ id: sessions.id })
      return rows.length
    }
  }
}

export type SessionStore = ReturnType<typeof sessionStore>

export function sessionId (token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
