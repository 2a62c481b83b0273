import { actors } from '../../access/audit.js'
import { connectWorkspace, disconnectWorkspace, syncWorkspaceTemplates, type ConnectDeps } from '../../connections/connect.js'
import { resolveVerifyToken, webhookCallbackUrl } from '../../connections/verify-token.js'
import type { Config } from '../../config.js'
import { AppError } from '../../errors.js'
import type { Runtime } from '../../runtime.js'
import { createUpstreamClient } from '../../upstream/client.js'
import { UpstreamError } from '../../upstream/errors.js'
import { CommandError, defineCommand } from '../command.js'
import { text } from '../flags.js'

export const connect = defineCommand({
  summary: 'connects a WhatsApp Business account: lists its numbers, stores the token encrypted, registers the webhook, syncs templates',
  flags: { workspace: text('ID'), 'waba-id': text('W'), 'access-token': text('T') },
  async run ({ workspace, 'waba-id': wabaId, 'access-token': accessToken }, runtime, config) {
    return await explained(async () => await connectWorkspace(await connectDeps(runtime, config), { workspaceId: workspace, wabaId, accessToken }, actors.cli()))
  }
})

export const disconnect = defineCommand({
  summary: 'makes the workspace\'s connection inactive (sends then get 409)',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime) {
    await explained(async () => await disconnectWorkspace({ stores: runtime.stores }, workspace, actors.cli()))
    return { ok: true }
  }
})

export const templatesSync = defineCommand({
  summary: 'pulls every page of the connected WABA\'s templates',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime, config) {
    return { synced: await explained(async () => await syncWorkspaceTemplates(await connectDeps(runtime, config), workspace)) }
  }
})

async function connectDeps (runtime: Runtime, config: Config): Promise<ConnectDeps> {
  return {
    stores: runtime.stores,
    cipher: runtime.cipher,
    upstream: createUpstreamClient({ baseUrl: config.GRAPH_API_URL, timeoutMs: config.UPSTREAM_TIMEOUT_MS }),
    callbackUrl: webhookCallbackUrl(config),
    verifyToken: await resolveVerifyToken(config, runtime.database.db)
  }
}

/** The service's errors become the CLI's exit-1 messages, the upstream's own words included. */
async function explained<T> (action: () => Promise<T>): Promise<T> {
  try {
    return await action()
  } catch (error) {
    if (error instanceof UpstreamError) throw new CommandError(`upstream refused: ${error.message}${error.details.code !== undefined ? ` (code ${error.details.code})` : ''}`)
    if (error instanceof AppError) throw new CommandError(error.message)
    throw error
  }
}
