import { DELIVERY_STATUSES, RELAY_SIGNINGS } from '../../../db/schema.js'
import { actors } from '../../access/audit.js'
import { publicRelay, publicRelayDelivery } from '../../resources/relay.js'
import { addRelay, RelayInputError, removeRelay } from '../../relay/targets.js'
import { CommandError, defineCommand } from '../command.js'
import { oneOf, optional, text, UsageError } from '../flags.js'
import { existingWorkspace } from './workspace.js'

const list = (value: string | undefined) => value?.split(',').map(item => item.trim()).filter(Boolean)

export const relaysAdd = defineCommand({
  summary: 'relays Meta\'s webhook for the workspace to a URL (default: every field, all numbers, signed with APP_SECRET); an own secret is shown this once',
  flags: { workspace: text('ID'), url: text('URL'), fields: optional(text('f1,f2')), 'phone-number-ids': optional(text('a,b')), secret: optional(oneOf('app|own', RELAY_SIGNINGS)) },
  async run ({ workspace, url, fields, 'phone-number-ids': numbers, secret }, runtime, config) {
    await existingWorkspace(runtime, workspace)
    try {
      const added = await addRelay({ relays: runtime.stores.relays, cipher: runtime.cipher, config },
        { workspaceId: workspace, url, fields: list(fields), phoneNumberIds: list(numbers), signing: secret }, actors.cli())
      return { ...publicRelay(added.relay), ...(added.secret && { secret: added.secret }) }
    } catch (error) {
      throw error instanceof RelayInputError ? new CommandError(error.message) : error
    }
  }
})

export const relaysList = defineCommand({
  summary: 'lists a workspace\'s relay targets, never their secrets',
  flags: { workspace: text('ID') },
  async run ({ workspace }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { relays: (await runtime.stores.relays.targets(workspace)).map(publicRelay) }
  }
})

export const relaysRemove = defineCommand({
  summary: 'removes a relay target; nothing more is sent to it',
  flags: { id: text('RELAY_ID') },
  async run ({ id }, runtime) {
    if (!await removeRelay(runtime.stores.relays, actors.cli(), id)) throw new CommandError(`relay ${JSON.stringify(id)} not found`)
    return { ok: true }
  }
})

export const relaysDeliveries = defineCommand({
  summary: 'lists a workspace\'s relay deliveries, newest first (100 at most)',
  flags: { workspace: text('ID'), status: optional(oneOf('S', DELIVERY_STATUSES)) },
  async run ({ workspace, status }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { deliveries: (await runtime.stores.relays.deliveries(workspace, { status, limit: 100 })).map(publicRelayDelivery) }
  }
})

export const relaysReplay = defineCommand({
  summary: 'sends delivered or failed relay deliveries again (same bytes and delivery id): one, or a relay\'s since a time',
  flags: { delivery: optional(text('ID')), relay: optional(text('ID')), since: optional(text('ISO')) },
  async run ({ delivery, relay, since }, runtime) {
    const { relays } = runtime.stores
    if (delivery !== undefined && relay === undefined && since === undefined) {
      if (!await relays.delivery(delivery)) throw new CommandError(`relay delivery ${JSON.stringify(delivery)} not found`)
      return { ok: true, replayed: await relays.replay({ deliveryId: delivery }) }
    }
    if (delivery !== undefined || relay === undefined || since === undefined) throw new UsageError('outbound relays replay --delivery ID | --relay ID --since ISO')
    const from = new Date(since)
    if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(from.getTime())) throw new UsageError('--since must be an ISO 8601 date')
    if (!await relays.target(relay)) throw new CommandError(`relay ${JSON.stringify(relay)} not found`)
    return { ok: true, replayed: await relays.replay({ relayId: relay, since: from }) }
  }
})
