import type { CommandEntry } from '../command.js'

/**
 * Every command the CLI has, by the words that name it. Each is imported only when it runs (or for
 * help), so a command loads what it needs and nothing of the others: a new command is one file and
 * one line here, `'words here': async () => (await import('./file.js')).exportedCommand`.
 */
export const commands: Record<string, CommandEntry> = {
  migrate: async () => (await import('./migrate.js')).migrate,
  'workspace create': async () => (await import('./workspace.js')).workspaceCreate,
  'workspace plan': async () => (await import('./workspace.js')).workspacePlan,
  'workspace settings': async () => (await import('./workspace.js')).workspaceSettings,
  'workspace retention': async () => (await import('./privacy.js')).workspaceRetention,
  purge: async () => (await import('./privacy.js')).purge,
  erase: async () => (await import('./privacy.js')).erase,
  connect: async () => (await import('./connection.js')).connect,
  disconnect: async () => (await import('./connection.js')).disconnect,
  'templates sync': async () => (await import('./connection.js')).templatesSync,
  'templates plan': async () => (await import('./templates.js')).templatesPlan,
  'templates apply': async () => (await import('./templates.js')).templatesApply,
  'keys create': async () => (await import('./keys.js')).keysCreate,
  'keys revoke': async () => (await import('./keys.js')).keysRevoke,
  'keys list': async () => (await import('./keys.js')).keysList,
  'messages list': async () => (await import('./lists.js')).messagesList,
  'inbound list': async () => (await import('./lists.js')).inboundList,
  'user create': async () => (await import('./user.js')).userCreate,
  'webhooks add': async () => (await import('./webhooks.js')).webhooksAdd,
  'webhooks list': async () => (await import('./webhooks.js')).webhooksList,
  'webhooks remove': async () => (await import('./webhooks.js')).webhooksRemove,
  'webhooks deliveries': async () => (await import('./webhooks.js')).webhooksDeliveries,
  'webhooks replay': async () => (await import('./webhooks.js')).webhooksReplay,
  'relays add': async () => (await import('./relays.js')).relaysAdd,
  'relays list': async () => (await import('./relays.js')).relaysList,
  'relays remove': async () => (await import('./relays.js')).relaysRemove,
  'relays deliveries': async () => (await import('./relays.js')).relaysDeliveries,
  'relays replay': async () => (await import('./relays.js')).relaysReplay,
  'audit list': async () => (await import('./audit.js')).auditList,
  'suppressions list': async () => (await import('./suppressions.js')).suppressionsList,
  'suppressions add': async () => (await import('./suppressions.js')).suppressionsAdd,
  'suppressions remove': async () => (await import('./suppressions.js')).suppressionsRemove,
  'campaigns list': async () => (await import('./campaigns.js')).campaignsList,
  'campaigns show': async () => (await import('./campaigns.js')).campaignsShow,
  'campaigns pause': async () => (await import('./campaigns.js')).campaignsAct('pause'),
  'campaigns resume': async () => (await import('./campaigns.js')).campaignsAct('resume'),
  'campaigns cancel': async () => (await import('./campaigns.js')).campaignsAct('cancel'),
  'media migrate': async () => (await import('./media.js')).mediaMigrate
}
