import { MESSAGE_STATUSES } from '../../resources/message-status.js'
import { inboundFileOf, inboundMediaView } from '../../media/inbound.js'
import { publicInbound } from '../../resources/inbound.js'
import { publicMessage } from '../../resources/message.js'
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
    const messages = await runtime.stores.inbound.list(workspace, { limit })
    const rows = new Map((await runtime.stores.media.ofInbound(workspace, messages.map(message => message.id))).map(row => [row.inboundMessageId, row]))
    // a file's `media` (CONTRACT.md 13), as the API shows it
    return {
      messages: messages.map(message => {
        const file = inboundFileOf(message.type, message.payload)
        return { ...publicInbound(message), ...(file && { media: inboundMediaView(file, rows.get(message.id)) }) }
      })
    }
  }
})
