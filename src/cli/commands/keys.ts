import { actors } from '../../access/audit.js'
import { createKey, grantedScopes, KeyGrantError, revokeKey } from '../../access/keys.js'
import type { Scope } from '../../access/scopes.js'
import { publicKey } from '../../resources/api-key.js'
import { CommandError, defineCommand } from '../command.js'
import { list, optional, text, UsageError, type Flag } from '../flags.js'
import { existingWorkspace } from './workspace.js'

// An unknown scope is wrong usage (exit 2), found before the database is opened.
const scopes: Flag<Scope[]> = {
  placeholder: 'a,b',
  required: true,
  parse (value, name) {
    try {
      return grantedScopes(list('a,b').parse(value, name))
    } catch (error) {
      throw error instanceof KeyGrantError ? new UsageError(`--${name}: ${error.message}`) : error
    }
  }
}

export const keysCreate = defineCommand({
  summary: 'creates an API key (default: every scope, any number); its secret is shown this once',
  flags: { workspace: text('ID'), name: optional(text('N'), 'default'), scopes: optional(scopes), 'phone-number-ids': optional(list('x,y')) },
  async run ({ workspace, name, scopes, 'phone-number-ids': phoneNumberIds }, runtime) {
    await existingWorkspace(runtime, workspace)
    try {
      const { key, secret } = await createKey(runtime.stores, actors.cli(), { workspaceId: workspace, name, scopes, phoneNumberIds })
      return { id: key.id, name: key.name, prefix: key.prefix, secret, scopes: key.scopes, phone_number_ids: key.phoneNumberIds, created_at: key.createdAt.toISOString() }
    } catch (error) {
      throw error instanceof KeyGrantError ? new CommandError(error.message) : error
    }
  }
})

export const keysRevoke = defineCommand({
  summary: 'revokes an API key at once',
  flags: { id: text('KEY_ID') },
  async run ({ id }, runtime) {
    if (!await revokeKey(runtime.stores, actors.cli(), id)) throw new CommandError(`API key ${JSON.stringify(id)} not found`)
    return { ok: true }
  }
})

export const keysList = defineCommand({
  summary: 'lists a workspace\'s API keys with their scopes, numbers and last use, never their secrets',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { keys: (await runtime.stores.keys.list(workspace)).map(publicKey) }
  }
})
