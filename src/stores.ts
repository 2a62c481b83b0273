import type { Database } from '../db/client.js'
import { apiKeyStore } from './store/api-keys.js'
import { auditLogStore } from './store/audit-log.js'
import { campaignUploadStore } from './store/campaign-uploads.js'
import { campaignMessage } from './campaigns/payload.js'
import { campaignStore } from './store/campaigns.js'
import { erasureStore } from './store/erasures.js'
import { connectionStore } from './store/connections.js'
import { conversationStore } from './store/conversations.js'
import { idempotencyKeyStore } from './store/idempotency-keys.js'
import { inboundStore } from './store/inbound.js'
import { messageReads } from './store/message-reads.js'
import { keptAsideStore } from './store/kept-aside.js'
import { holdStore } from './store/holds.js'
import { mediaStore } from './store/media.js'
import { messagingLimitStore } from './store/messaging-limit.js'
import { messageSearch } from './store/message-search.js'
import { messageStore } from './store/messages.js'
import { queuedSendStore } from './store/queued-sends.js'
import { readCache } from './store/read-cache.js'
import { relayStore } from './store/relays.js'
import { serviceWindowStore } from './store/service-window.js'
import { sessionStore } from './store/sessions.js'
import { statusEventStore } from './store/status-events.js'
import { suppressionStore } from './store/suppressions.js'
import { templateChangeStore } from './store/template-changes.js'
import { templateResyncStore } from './store/template-resyncs.js'
import { templateStore } from './store/templates.js'
import { userIdStore } from './store/user-ids.js'
import { usageStore } from './store/usage.js'
import { userStore } from './store/users.js'
import { webhookStore } from './store/webhooks.js'
import { workspaceStore } from './store/workspaces.js'
import { outboxBell } from './store/outbox.js'

/**
 * Every repository over one database, the read cache the send path's lookups share and the outbox's
 * bell its delivery task listens to: the server decorates them, the CLI calls them directly.
 */
export function createStores (db: Database) {
  const cache = readCache(db)
  const outbox = outboxBell()
  return {
    readCache: cache,
    outbox,
    workspaces: workspaceStore(db, cache),
    keys: apiKeyStore(db, cache),
    auditLog: auditLogStore(db),
    connections: connectionStore(db, cache),
    templates: templateStore(db),
    statusEvents: statusEventStore(db),
    messages: messageStore(db, outbox),
    idempotencyKeys: idempotencyKeyStore(db),
    inbound: inboundStore(db),
    conversations: conversationStore(db),
    keptAside: keptAsideStore(db),
    media: mediaStore(db),
    users: userStore(db),
    sessions: sessionStore(db),
    messageSearch: messageSearch(db),
    messageReads: messageReads(db),
    webhooks: webhookStore(db),
    relays: relayStore(db),
    queuedSends: queuedSendStore(db, outbox),
    serviceWindow: serviceWindowStore(db),
    userIds: userIdStore(db),
    suppressions: suppressionStore(db),
    messagingLimit: messagingLimitStore(db),
    holds: holdStore(db),
    templateResyncs: templateResyncStore(db),
    templateChanges: templateChangeStore(db),
    usage: usageStore(db),
    campaigns: campaignStore(db, { build: campaignMessage, outbox }),
    campaignUploads: campaignUploadStore(db),
    erasures: erasureStore(db)
  }
}

export type Stores = ReturnType<typeof createStores>
