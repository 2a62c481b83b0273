import { DELIVERY_STATUSES } from '../../../db/schema.js'
import { actors } from '../../access/audit.js'
import { addEndpoint, ForbiddenTargetError, removeEndpoint } from '../../events/endpoints.js'
import { publicDelivery, publicEndpoint } from '../../resources/webhook.js'
import { CommandError, defineCommand } from '../command.js'
import { oneOf, optional, text, UsageError } from '../flags.js'
import { existingWorkspace } from './workspace.js'

export const webhooksAdd = defineCommand({
  summary: 'adds an endpoint for events (default: every type); its secret is shown this once',
  flags: { workspace: text('ID'), url: text('URL'), events: optional(text('a,b')) },
  async run ({ workspace, url, events }, runtime, config) {
    await existingWorkspace(runtime, workspace)
    try {
      const added = await addEndpoint({ webhooks: runtime.stores.webhooks, cipher: runtime.cipher, config },
        { workspaceId: workspace, url, events: events?.split(',').map(type => type.trim()).filter(Boolean) }, actors.cli())
      return { id: added.endpoint.id, url: added.endpoint.url, events: added.endpoint.events, secret: added.secret }
    } catch (error) {
      throw error instanceof ForbiddenTargetError ? new CommandError(error.message) : error
    }
  }
})

export const webhooksList = defineCommand({
  summary: 'lists a workspace\'s endpoints, never their secrets',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { endpoints: (await runtime.stores.webhooks.endpoints(workspace)).map(publicEndpoint) }
  }
})

export const webhooksRemove = defineCommand({
  summary: 'removes an endpoint; nothing more is sent to it',
  flags: { id: text('ENDPOINT_ID') },
  async run ({ id }, runtime) {
    if (!await removeEndpoint(runtime.stores.webhooks, actors.cli(), id)) throw new CommandError(`webhook endpoint ${JSON.stringify(id)} not found`)
    return { ok: true }
  }
})

export const webhooksDeliveries = defineCommand({
  summary: 'lists a workspace\'s deliveries, newest first (100 at most)',
  flags: { workspace: text('ID'), status: optional(oneOf('S', DELIVERY_STATUSES)) },
  async run ({ workspace, status }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { deliveries: (await runtime.stores.webhooks.deliveries(workspace, { status, limit: 100 })).map(publicDelivery) }
  }
})

export const webhooksReplay = defineCommand({
  summary: 'sends delivered or failed deliveries again (same webhook-id and body): one, or an endpoint\'s since a time',
  flags: { delivery: optional(text('ID')), endpoint: optional(text('ID')), since: optional(text('ISO')) },
  async run ({ delivery, endpoint, since }, runtime) {
    if (delivery !== undefined && endpoint === undefined && since === undefined) {
      if (!await runtime.stores.webhooks.delivery(delivery)) throw new CommandError(`delivery ${JSON.stringify(delivery)} not found`)
      return { ok: true, replayed: await runtime.stores.webhooks.replay({ deliveryId: delivery }) }
    }
    if (delivery !== undefined || endpoint === undefined || since === undefined) throw new UsageError('outbound webhooks replay --delivery ID | --endpoint ID --since ISO')
    const from = new Date(since)
    if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(from.getTime())) throw new UsageError('--since must be an ISO 8601 date')
    if (!await runtime.stores.webhooks.endpoint(endpoint)) throw new CommandError(`webhook endpoint ${JSON.stringify(endpoint)} not found`)
    return { ok: true, replayed: await runtime.stores.webhooks.replay({ endpointId: endpoint, since: from }) }
  }
})
