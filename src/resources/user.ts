import type { users } from '../../db/schema.js'

type User = typeof users.$inferSelect

/** A dashboard user as the command line shows one: never the password's hash. */
export function publicUser (user: User) {
  return { id: user.id, email: user.email, workspace_id: user.workspaceId }
}
