import { MESSAGE_STATUSES } from '../../../db/schema.js'
import { publicInbound } from '../../store/inbound.js'
import { publicMessage } from '../../store/messages.js'
import { defineCommand } from '../command.js'
import { integer, oneOf, optional, text } from '../flags.js'
import { existingWorkspace } from './workspace.js'

const limit = optional(integer('N', 1, 1000), 50)

export const messagesList = defineCommand({
  summary: 'lists sent messages, newest first',
  flags: { workspace: text('ID'), status: optional(oneOf('S', MESSAGE_STATUSES)), limit },
  async run ({ workspace, status, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { messages: (await runtime.stores.messages.list(workspace, { status, limit })).map(publicMessage) }
  }
})

export const inboundList = defineCommand({
  summary: 'lists received messages, newest first',
  flags: { workspace: text('ID'), limit },
  async run ({ workspace, limit }, runtime) {
    await existingWorkspace(runtime, workspace)
    return { messages: (await runtime.stores.inbound.list(workspace, { limit })).map(publicInbound) }
  }
})
