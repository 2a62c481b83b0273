import type { Command } from '../command.js'
import { auditList } from './audit.js'
import { campaignsAct, campaignsList, campaignsShow } from './campaigns.js'
import { connect, disconnect, templatesSync } from './connection.js'
import { keysCreate, keysList, keysRevoke } from './keys.js'
import { inboundList, messagesList } from './lists.js'
import { migrate } from './migrate.js'
import { userCreate } from './user.js'
import { webhooksAdd, webhooksDeliveries, webhooksList, webhooksRemove, webhooksReplay } from './webhooks.js'
import { workspaceCreate, workspacePlan } from './workspace.js'

/** Every command the CLI has, by the words that name it: a new command is one file and one line here. */
export const commands: Record<string, Command> = {
  migrate,
  'workspace create': workspaceCreate,
  'workspace plan': workspacePlan,
  connect,
  disconnect,
  'templates sync': templatesSync,
  'keys create': keysCreate,
  'keys revoke': keysRevoke,
  'keys list': keysList,
  'messages list': messagesList,
  'inbound list': inboundList,
  'user create': userCreate,
  'webhooks add': webhooksAdd,
  'webhooks list': webhooksList,
  'webhooks remove': webhooksRemove,
  'webhooks deliveries': webhooksDeliveries,
  'webhooks replay': webhooksReplay,
  'audit list': auditList,
  'campaigns list': campaignsList,
  'campaigns show': campaignsShow,
  'campaigns pause': campaignsAct('pause'),
  'campaigns resume': campaignsAct('resume'),
  'campaigns cancel': campaignsAct('cancel')
}
