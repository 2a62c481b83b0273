import { audit, type Who } from '../access/audit.js'
import type { TokenCipher } from '../crypto/token-cipher.js'
import { AppError, notFound } from '../errors.js'
import type { Stores } from '../stores.js'
import type { Connection } from '../store/connections.js'
import type { UpstreamClient } from '../upstream/client.js'

/** What connecting needs; the Fastify app and the CLI's runtime both provide it. */
export interface ConnectDeps {
  stores: Pick<Stores, 'workspaces' | 'connections' | 'templates' | 'holds'>
  cipher: TokenCipher
  upstream: UpstreamClient
  /** PUBLIC_URL/webhooks/whatsapp */
  callbackUrl: string
  verifyToken: string
}

export interface ConnectResult {
  connection_id: string
  phone_numbers: { phone_number_id: string, display_phone_number: string }[]
  templates: number
  webhook_registered: boolean
  webhook_error?: string
}

/**
 * Connects a WABA to a workspace (CONTRACT.md section 4, `connect`): the token is proven by listing
 * the WABA's numbers, stored encrypted, the webhook is registered and templates are synced. A failed
 * registration keeps the connection; the server retries it.
 */
export async function connectWorkspace (deps: ConnectDeps, input: { workspaceId: string, wabaId: string, accessToken: string }, who?: Who): Promise<ConnectResult> {
  if (!await deps.stores.workspaces.get(input.workspaceId)) throw notFound(`No workspace ${input.workspaceId}`)
  const listed = await deps.upstream.listPhoneNumbers(input.wabaId, input.accessToken)
  if (listed.length === 0) throw new AppError(422, 'invalid_request', `WABA ${input.wabaId} has no phone numbers to send from`)
  const numbers = await Promise.all(listed.map(async number => ({ ...number, ...await deps.upstream.getPhoneNumber(number.id, input.accessToken) })))
  const { connection } = await deps.stores.connections.replace(input.workspaceId, input.wabaId, deps.cipher.encrypt(input.accessToken), numbers,
    audit.of(who, 'connection.connected', connected => ({ workspaceId: input.workspaceId, target: { kind: 'connection', id: connected.connection.id } })))
  const webhookError = await registerWebhook(deps, connection)
  const templates = await syncTemplates(deps, connection)
  return {
    connection_id: connection.id,
    phone_numbers: numbers.map(number => ({ phone_number_id: number.id, display_phone_number: number.display_phone_number })),
    templates,
    webhook_registered: webhookError === null,
    ...(webhookError !== null && { webhook_error: webhookError })
  }
}

/** Registers PUBLIC_URL/webhooks/whatsapp as the WABA's callback; the upstream verifies it with the handshake. Returns the error, or null. */
export async function registerWebhook (deps: ConnectDeps, connection: Connection): Promise<string | null> {
  let error: string | null = null
  try {
    await deps.upstream.subscribeApp(connection.wabaId, deps.cipher.decrypt(connection.accessToken), { overrideCallbackUri: deps.callbackUrl, verifyToken: deps.verifyToken })
  } catch (failure) {
    error = (failure as Error).message
  }
  await deps.stores.connections.recordWebhookRegistration(connection.id, error)
  return error
}

export async function syncTemplates (deps: Pick<ConnectDeps, 'stores' | 'cipher' | 'upstream'>, connection: Connection): Promise<number> {
  const templates = await deps.upstream.listTemplates(connection.wabaId, deps.cipher.decrypt(connection.accessToken))
  return await deps.stores.templates.replaceAll(connection.workspaceId, connection.wabaId, templates)
}

/** Template sync for a workspace's active connection. */
export async function syncWorkspaceTemplates (deps: Pick<ConnectDeps, 'stores' | 'cipher' | 'upstream'>, workspaceId: string): Promise<number> {
  const active = await deps.stores.connections.active(workspaceId)
  if (!active) throw new AppError(409, 'no_active_connection', `Workspace ${workspaceId} has no active connection`)
  return await syncTemplates(deps, active.connection)
}

export async function disconnectWorkspace (deps: Pick<ConnectDeps, 'stores'>, workspaceId: string, who?: Who): Promise<void> {
  if (!await deps.stores.workspaces.get(workspaceId)) throw notFound(`No workspace ${workspaceId}`)
  const audited = audit.of(who, 'connection.disconnected', (connection: Connection) => ({ workspaceId, target: { kind: 'connection', id: connection.id } }))
  if (!await deps.stores.connections.deactivate(workspaceId, audited)) throw new AppError(409, 'no_active_connection', `Workspace ${workspaceId} has no active connection`)
}
