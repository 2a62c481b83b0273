import { generatePassword, hashPassword } from '../crypto/password.js'
import type { Stores } from '../stores.js'
import type { User } from '../store/users.js'

// Deliberately loose: the address is an identifier here, never mailed to.
const EMAIL = /^[^\s@]+@[^\s@]+$/

export class AccountError extends Error {}

export function isEmailAddress (email: string): boolean {
  return EMAIL.test(email) && email.length <= 320
}

/** A dashboard user with a generated password: the one time the password exists outside its hash. */
export async function createUser (stores: Pick<Stores, 'workspaces' | 'users'>, input: { workspaceId: string, email: string }): Promise<{ user: User, password: string }> {
  const email = input.email.trim()
  if (!isEmailAddress(email)) throw new AccountError(`${JSON.stringify(input.email)} is not an email address`)
  if (!await stores.workspaces.get(input.workspaceId)) throw new AccountError(`workspace ${JSON.stringify(input.workspaceId)} not found`)
  const password = generatePassword()
  const user = await stores.users.create(input.workspaceId, email, await hashPassword(password))
  if (!user) throw new AccountError(`a user with the email ${email.toLowerCase()} already exists`)
  return { user, password }
}
