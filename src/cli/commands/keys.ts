import { publicKey } from '../../store/api-keys.js'
import { CommandError, defineCommand } from '../command.js'
import { optional, text } from '../flags.js'
import { existingWorkspace } from './workspace.js'

export const keysCreate = defineCommand({
  summary: 'creates an API key; its secret is shown this once',
  flags: { workspace: text('ID'), name: optional(text('N'), 'default') },
  async run ({ workspace, name }, runtime) {
    await existingWorkspace(runtime, workspace)
    const { key, secret } = await runtime.stores.keys.create(workspace, name)
    return { id: key.id, name: key.name, prefix: key.prefix, secret, created_at: key.createdAt.toISOString() }
  }
})

export const keysRevoke = defineCommand({
  summary: 'revokes an API key at once',
  flags: { id: text('KEY_ID') },
  async run ({ id }, runtime) {
    if (!await runtime.stores.keys.revoke(id)) throw new CommandError(`API key ${JSON.stringify(id)} not found`)
    return { ok: true }
  }
})

export const keysList = defineCommand({
  summary: 'lists a workspace\'s API keys, never their secrets',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { keys: (await runtime.stores.keys.list(workspace)).map(publicKey) }
  }
})
