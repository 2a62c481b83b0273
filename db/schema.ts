import { sql } from 'drizzle-orm'
import { bigint, boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

// The tables, which drizzle-kit generates migrations from. The plpgsql functions (the triggers'
// among them) are kept as source in db/functions/, one file a function, and reach the database as
// migrations written from it by `npm run db:functions` (CONTRIBUTING.md, "The database").
const id = () => text('id').primaryKey()
// postgres.js reads bytea as a Buffer, PGlite as a Uint8Array: callers get a Buffer either way.
const bytea = customType<{ data: Buffer, driverData: Uint8Array }>({ dataType: () => 'bytea', fromDriver: value => Buffer.from(value) })
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow()
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()

export const PLANS = ['free', 'starter', 'growth', 'scale'] as const
export type Plan = typeof PLANS[number]

/** A workspace's read-receipt policy (CONTRACT.md 19): by API call only, each message as it arrives, or the person's latest when they are answered. */
export const READ_RECEIPTS = ['manual', 'on_receipt', 'on_reply'] as const
export type ReadReceipts = typeof READ_RECEIPTS[number]

export const workspaces = pgTable('workspaces', {
  id: id(),
  name: text('name').notNull(),
  plan: text('plan').$type<Plan>().notNull(),
  /** when inbound messages are marked read upstream (CONTRACT.md 19) */
  readReceipts: text('read_receipts').$type<ReadReceipts>().notNull().default('manual'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  /** content older than this many days is purged by the retention sweep (CONTRACT.md 17); null: kept */
  retentionDays: integer('retention_days'),
  /** the retention sweep has purged every content created before this time (src/privacy/sweep.ts) */
  contentPurgedThrough: timestamp('content_purged_through', { withTimezone: true })
})

export const connections = pgTable('connections', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  wabaId: text('waba_id').notNull(),
  /** AES-256-GCM ciphertext with its key id: see src/crypto/token-cipher.ts */
  accessToken: text('access_token').notNull(),
  status: text('status').$type<'active' | 'inactive'>().notNull(),
  webhookRegistered: boolean('webhook_registered').notNull().default(false),
  webhookError: text('webhook_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt()
}, table => [
  uniqueIndex('connections_one_active_per_workspace').on(table.workspaceId).where(sql`status = 'active'`),
  index('connections_waba_id').on(table.wabaId)
])

export const phoneNumbers = pgTable('phone_numbers', {
  id: id(),
  connectionId: text('connection_id').notNull().references(() => connections.id),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  phoneNumberId: text('phone_number_id').notNull(),
  displayPhoneNumber: text('display_phone_number').notNull(),
  verifiedName: text('verified_name'),
  qualityRating: text('quality_rating'),
  throughputLevel: text('throughput_level'),
  messagingLimitTier: text('messaging_limit_tier'),
  /** what the phone-number node said last: a re-read that says the same again does not undo a webhook's newer tier */
  messagingLimitTierNode: text('messaging_limit_tier_node'),
  /** the upstream's listing order: position 0 is the workspace's default sender */
  position: integer('position').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt()
}, table => [
  uniqueIndex('phone_numbers_connection_number').on(table.connectionId, table.phoneNumberId),
  index('phone_numbers_phone_number_id').on(table.phoneNumberId),
  index('phone_numbers_workspace_position').on(table.workspaceId, table.position)
])

/** What an API key may do (CONTRACT.md 16); a key may hold any of them, every one by default. */
export const SCOPES = ['messages:send', 'messages:read', 'media:write', 'campaigns:write', 'campaigns:read', 'suppressions:write', 'usage:read', 'privacy:write', 'relays:write', 'templates:read', 'templates:write'] as const
export type Scope = typeof SCOPES[number]

export const apiKeys = pgTable('api_keys', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  name: text('name').notNull(),
  /** the visible part of the secret, unique: how a presented key is found */
  prefix: text('prefix').notNull().unique(),
  /** SHA-256 of the whole secret; the secret itself is never stored */
  secretHash: text('secret_hash').notNull(),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  scopes: jsonb('scopes').$type<Scope[]>().notNull().default([...SCOPES]),
  /** the numbers the key may send from; null: any of its workspace's */
  phoneNumberIds: jsonb('phone_number_ids').$type<string[]>()
}, table => [index('api_keys_workspace').on(table.workspaceId)])

export const templates = pgTable('templates', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  wabaId: text('waba_id').notNull(),
  upstreamId: text('upstream_id'),
  name: text('name').notNull(),
  language: text('language').notNull(),
  status: text('status').notNull(),
  category: text('category'),
  /** the upstream's quality score (GREEN, YELLOW, RED, UNKNOWN), from message_template_quality_update */
  quality: text('quality'),
  components: jsonb('components').$type<unknown[]>().notNull().default([]),
  /** POSITIONAL or NAMED, as the upstream lists it */
  parameterFormat: text('parameter_format'),
  /** why the upstream rejected it (INVALID_FORMAT, …); null unless REJECTED */
  rejectedReason: text('rejected_reason'),
  updatedAt: updatedAt()
}, table => [
  uniqueIndex('templates_workspace_name_language').on(table.workspaceId, table.name, table.language),
  index('templates_waba_name').on(table.wabaId, table.name)
])

/** Every status a log record can have, in one place: the API's `status` filter and the dashboard's list accept each (queued and sending: CONTRACT.md 9). */
/** Why a queued send waits (CONTRACT.md 14). */
export const HOLD_REASONS = ['messaging_limit', 'cooldown', 'template_paused'] as const
export type HoldReason = typeof HOLD_REASONS[number]

export const MESSAGE_STATUSES = ['queued', 'sending', 'pending', 'sent', 'delivered', 'read', 'failed'] as const
export type MessageStatus = typeof MESSAGE_STATUSES[number]

export const messages = pgTable('messages', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  apiKeyId: text('api_key_id').references(() => apiKeys.id),
  phoneNumberId: text('phone_number_id').notNull(),
  recipient: text('recipient').notNull(),
  type: text('type').notNull(),
  /** the upstream message object as sent */
  payload: jsonb('payload').notNull(),
  status: text('status').$type<MessageStatus>().notNull(),
  wamid: text('wamid').unique(),
  errorCode: text('error_code'),
  errorText: text('error_text'),
  attempts: integer('attempts').notNull().default(0),
  pricingCategory: text('pricing_category'),
  /** the process dispatching a pending or sending record: see src/dispatch leases */
  dispatcherId: text('dispatcher_id'),
  /** the caller's own reference, returned and filterable (CONTRACT.md 7) */
  clientReference: text('client_reference'),
  /** the campaign that made this record (CONTRACT.md 15); null for a message sent on its own */
  campaignId: text('campaign_id'),
  /** the Idempotency-Key that created the record; kept after the key itself expires, for the dashboard */
  idempotencyKey: text('idempotency_key'),
  /** when our dispatch ended sent or failed: the record's own steps in its history (the webhook events have theirs) */
  sentAt: timestamp('sent_at', { withTimezone: true }),
  failedAt: timestamp('failed_at', { withTimezone: true }),
  /** a queued send's steps before its outcome (CONTRACT.md 9): handed over (= created_at), then taken to send */
  queuedAt: timestamp('queued_at', { withTimezone: true }),
  sendingAt: timestamp('sending_at', { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  /** a queued send that waits for a reason (src/audience/verdict.ts): messaging_limit, cooldown or template_paused; null otherwise */
  heldReason: text('held_reason').$type<HoldReason>(),
  /** since when it is held; with held_ms, the time that does not count towards QUEUE_MAX_AGE_MS */
  heldSince: timestamp('held_since', { withTimezone: true }),
  heldMs: bigint('held_ms', { mode: 'number' }).notNull().default(0),
  /** the status webhooks' `pricing` object (CONTRACT.md 14), and its `billable` for the usage query's index */
  pricing: jsonb('pricing').$type<Record<string, unknown>>(),
  billable: boolean('billable'),
  /** when the payload's content was purged (retention, a purge, an erasure: src/privacy/); the metadata stays */
  contentPurgedAt: timestamp('content_purged_at', { withTimezone: true }),
  /** the recipient was erased (CONTRACT.md 17): recipient '' and wamid null from then on */
  erased: boolean('erased').notNull().default(false)
}, table => [
  // each list filter has its index, ending in (created_at, id): the keyset of GET /api/messages.php
  index('messages_workspace_created').on(table.workspaceId, table.createdAt, table.id),
  index('messages_workspace_status_created').on(table.workspaceId, table.status, table.createdAt, table.id),
  index('messages_workspace_recipient_created').on(table.workspaceId, table.recipient, table.createdAt, table.id),
  index('messages_workspace_number_recipient_created').on(table.workspaceId, table.phoneNumberId, table.recipient, table.createdAt, table.id),
  index('messages_workspace_client_reference_created').on(table.workspaceId, table.clientReference, table.createdAt, table.id).where(sql`client_reference is not null`),
  index('messages_pending_dispatcher').on(table.dispatcherId).where(sql`status in ('pending', 'sending')`),
  index('messages_queued').on(table.workspaceId, table.phoneNumberId, table.createdAt).where(sql`status = 'queued'`),
  // GET /api/usage.php: an index-only scan of the workspace's accepted sends in a period (the
  // migration adds INCLUDE (pricing_category, billable, recipient), which drizzle cannot write)
  index('messages_usage').on(table.workspaceId, table.createdAt).where(sql`wamid is not null`),
  index('messages_campaign_status').on(table.campaignId, table.status).where(sql`campaign_id is not null`),
  index('messages_campaign_created').on(table.campaignId, table.createdAt, table.id).where(sql`campaign_id is not null`)
])
/** A log record as a select returns it: the type every room shares, from the store up (src/resources builds the API's shapes from it). */
export type MessageRecord = typeof messages.$inferSelect

export const messageEvents = pgTable('message_events', {
  id: id(),
  /** null while the wamid is unknown: the event is kept aside, never dropped */
  messageId: text('message_id').references(() => messages.id),
  wamid: text('wamid').notNull(),
  status: text('status').notNull(),
  upstreamTimestamp: timestamp('upstream_timestamp', { withTimezone: true }).notNull(),
  errorCode: text('error_code'),
  errorText: text('error_text'),
  pricingCategory: text('pricing_category'),
  payload: jsonb('payload').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow()
}, table => [
  uniqueIndex('message_events_unique_delivery').on(table.wamid, table.status, table.upstreamTimestamp),
  index('message_events_message').on(table.messageId)
])

export const inboundMessages = pgTable('inbound_messages', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  phoneNumberId: text('phone_number_id').notNull(),
  wamid: text('wamid').notNull().unique(),
  /** the sender's number as given; null for a sender known only by its business-scoped user id */
  from: text('from'),
  fromUserId: text('from_user_id'),
  type: text('type').notNull(),
  payload: jsonb('payload').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
  /** marked read upstream (CONTRACT.md 19), by this message's mark or a later one's */
  readAt: timestamp('read_at', { withTimezone: true }),
  createdAt: createdAt(),
  contentPurgedAt: timestamp('content_purged_at', { withTimezone: true })
}, table => [
  index('inbound_messages_workspace_received').on(table.workspaceId, table.receivedAt),
  // a thread's inbound side (CONTRACT.md 19), by number or by user id
  index('inbound_messages_workspace_from_received').on(table.workspaceId, table.from, table.receivedAt, table.id).where(sql`"from" is not null`),
  index('inbound_messages_workspace_user_id_received').on(table.workspaceId, table.fromUserId, table.receivedAt, table.id).where(sql`from_user_id is not null`),
  // a person's unread messages to a number
  index('inbound_messages_unread').on(table.workspaceId, table.phoneNumberId, sql`(coalesce("from", "from_user_id"))`, table.receivedAt).where(sql`read_at is null`),
  // the service window: has this sender written to this number lately?
  index('inbound_messages_number_from_received').on(table.phoneNumberId, table.from, table.receivedAt),
  // the same for a sender known by its business-scoped user id (CONTRACT.md 16)
  index('inbound_messages_number_from_user_id_received').on(table.phoneNumberId, table.fromUserId, table.receivedAt).where(sql`from_user_id is not null`)
])

/**
 * One row per conversation, (workspace, number, person), kept by the triggers of migration 0024
 * (db/functions/conversation_*.sql) in the transaction of each message written: the list of
 * conversations (CONTRACT.md 19) reads these rows, never the messages. `person` is a phone number's
 * digits or a business-scoped user id, as a log record's `recipient`. Holds a person's number and user id.
 */
export const conversations = pgTable('conversations', {
  workspaceId: text('workspace_id').notNull(),
  phoneNumberId: text('phone_number_id').notNull(),
  person: text('person').notNull(),
  to: text('to'),
  recipientUserId: text('recipient_user_id'),
  lastInboundAt: timestamp('last_inbound_at', { withTimezone: true }),
  lastOutboundAt: timestamp('last_outbound_at', { withTimezone: true }),
  lastAt: timestamp('last_at', { withTimezone: true }).notNull(),
  unread: integer('unread').notNull().default(0)
}, table => [
  primaryKey({ name: 'conversations_pk', columns: [table.workspaceId, table.phoneNumberId, table.person] }),
  index('conversations_workspace_last').on(table.workspaceId, table.lastAt, table.phoneNumberId, table.person)
])

/**
 * Idempotency-Key (CONTRACT.md 8): taken in the transaction that creates its log record, so no FK to
 * messages (the key row is written first); holds the answer given, replayed until expires_at.
 */
export const idempotencyKeys = pgTable('idempotency_keys', {
  workspaceId: text('workspace_id').notNull(),
  key: text('key').notNull(),
  /** SHA-256 of the normalised message: see src/messages/fingerprint.ts */
  fingerprint: text('fingerprint').notNull(),
  messageId: text('message_id').notNull(),
  responseStatus: integer('response_status'),
  responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
  responseBody: text('response_body'),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull()
}, table => [
  primaryKey({ columns: [table.workspaceId, table.key] }),
  index('idempotency_keys_expires').on(table.expiresAt)
])

/** Process-wide values every process shares, such as the generated webhook verify token. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull()
})

/** Live gateway processes: each renews its lease; records pending under an expired lease were interrupted. */
export const dispatchers = pgTable('dispatchers', {
  id: text('id').primaryKey(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }).notNull()
}, table => [index('dispatchers_lease').on(table.leaseExpiresAt)])

/**
 * The groups of a group mode of the runner (src/work/groups.ts: a number's queued sends and campaign
 * messages): the process working each group's jobs, one at a time, under a lease it renews.
 */
export const jobGroups = pgTable('job_groups', {
  /** the group mode (its name in the runner) */
  name: text('name').notNull(),
  groupKey: text('group_key').notNull(),
  holder: text('holder').notNull(),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }).notNull()
}, table => [primaryKey({ columns: [table.name, table.groupKey] })])

/** Dashboard users: each belongs to one workspace. */
export const users = pgTable('users', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  /** stored lower-cased */
  email: text('email').notNull().unique(),
  /** scrypt, with its parameters and salt: see src/crypto/password.ts */
  passwordHash: text('password_hash').notNull(),
  createdAt: createdAt(),
  lastLoginAt: timestamp('last_login_at', { withTimezone: true })
}, table => [index('users_workspace').on(table.workspaceId)])

export const sessions = pgTable('sessions', {
  /** SHA-256 of the cookie's token: a leaked table opens no session */
  id: text('id').primaryKey(),
  userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  csrfToken: text('csrf_token').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull()
}, table => [index('sessions_user').on(table.userId), index('sessions_expires').on(table.expiresAt)])

/**
 * What a webhook delivery carried that could not be applied (a poison value, a message with no
 * sender, an unroutable number) or that names no record (value-level upstream errors): kept, never
 * dropped. `event` is the JSON of the part concerned, escaped so that any text column accepts it.
 */
export const webhookKeptAside = pgTable('webhook_kept_aside', {
  id: id(),
  /** the inbox job (delivery) it came in */
  jobId: bigint('job_id', { mode: 'number' }),
  kind: text('kind').$type<'rejected' | 'no_sender' | 'unrouted' | 'upstream_errors'>().notNull(),
  /** a code: timestamp_out_of_range, invalid_text, missing_id, … */
  reason: text('reason').notNull(),
  /** the path of the offending value inside `event`, when there is one */
  field: text('field'),
  /** the phone number id or WABA id the part was addressed to */
  routeId: text('route_id'),
  /** the upstream's error codes, comma-separated */
  codes: text('codes'),
  event: text('event').notNull(),
  createdAt: createdAt()
}, table => [index('webhook_kept_aside_created').on(table.createdAt)])

export const JOB_STATUSES = ['ready', 'running', 'dead'] as const
export type JobStatus = typeof JOB_STATUSES[number]

/**
 * Durable work of every kind (src/work/): the webhook inbox, queued sends, outgoing events. A job is
 * deleted when its work commits; one that keeps failing stays as a dead letter until replayed.
 */
export const jobs = pgTable('jobs', {
  /** arrival order */
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  /** the kind of work: the task that runs it */
  queue: text('queue').notNull(),
  /** an optional sub-queue a task may claim on its own (queued sends: the sending number) */
  groupKey: text('group_key'),
  /** the task's input, as bytes: a webhook delivery is kept exactly as signed */
  payload: bytea('payload').notNull(),
  status: text('status').$type<JobStatus>().notNull().default('ready'),
  runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
  attempts: integer('attempts').notNull().default(0),
  /** the process working on a `running` job, until `locked_until` (a lease it renews) */
  lockedBy: text('locked_by'),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  lastError: text('last_error'),
  createdAt: createdAt()
}, table => [
  // claims walk these in arrival order instead of sorting the backlog
  index('jobs_claimable').on(table.queue, table.id).where(sql`status <> 'dead'`),
  index('jobs_claimable_group').on(table.queue, table.groupKey, table.id).where(sql`status <> 'dead' and group_key is not null`),
  index('jobs_dead').on(table.queue, table.createdAt).where(sql`status = 'dead'`)
])

/** A customer's endpoint for outgoing events (CONTRACT.md 10). The secret is encrypted: it must sign. */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  url: text('url').notNull(),
  /** the event types it receives */
  events: jsonb('events').$type<string[]>().notNull(),
  /** `whsec_…`, encrypted with the token cipher */
  secret: text('secret').notNull(),
  createdAt: createdAt(),
  removedAt: timestamp('removed_at', { withTimezone: true })
}, table => [index('webhook_endpoints_workspace').on(table.workspaceId).where(sql`removed_at is null`)])

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = typeof DELIVERY_STATUSES[number]

/** One event for one endpoint: the outbox row. `body` is the exact bytes sent, so a replay sends them again. */
export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: id(),
  endpointId: text('endpoint_id').notNull().references(() => webhookEndpoints.id),
  workspaceId: text('workspace_id').notNull(),
  type: text('type').notNull(),
  /** Standard Webhooks' `webhook-id`: one per event, the same on every retry and replay */
  webhookId: text('webhook_id').notNull(),
  body: text('body').notNull(),
  status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  lastResponseStatus: integer('last_response_status'),
  lastError: text('last_error'),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  createdAt: createdAt(),
  deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  /** when the body was replaced by its type alone (retention, an erasure, a delivered contact.erased) */
  contentPurgedAt: timestamp('content_purged_at', { withTimezone: true })
}, table => [
  uniqueIndex('webhook_deliveries_endpoint_webhook_id').on(table.endpointId, table.webhookId),
  index('webhook_deliveries_workspace_created').on(table.workspaceId, table.createdAt),
  index('webhook_deliveries_endpoint_created').on(table.endpointId, table.createdAt),
  index('webhook_deliveries_pending').on(table.nextAttemptAt).where(sql`status = 'pending'`)
])

/**
 * Each attempt of a delivery, as it ended: the answer (HTTP status, or the error when there was
 * none) and where it left the delivery (delivered, pending: retried later, failed). Written with
 * the delivery's own update, in the same statement. No headers, no secret: the body is the
 * delivery's, the same on every attempt.
 */
export const webhookDeliveryAttempts = pgTable('webhook_delivery_attempts', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  deliveryId: text('delivery_id').notNull().references(() => webhookDeliveries.id),
  /** 1 for the first attempt; a replay goes on counting */
  number: integer('number').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  responseStatus: integer('response_status'),
  error: text('error'),
  outcome: text('outcome').$type<DeliveryStatus>().notNull()
}, table => [index('webhook_delivery_attempts_delivery').on(table.deliveryId, table.id)])

/**
 * Meta's change fields of a WhatsApp Business Account's webhook (CONTRACT.md 18): what a relay
 * target may ask for. A target that names none takes every field, those Meta adds later included.
 */
export const RELAY_FIELDS = [
  'messages', 'message_echoes', 'message_template_status_update', 'message_template_quality_update',
  'message_template_components_update', 'template_category_update', 'template_correct_category_detection',
  'phone_number_quality_update', 'phone_number_name_update', 'account_update', 'account_review_update',
  'account_alerts', 'business_capability_update', 'business_status_update', 'user_preferences', 'security',
  'calls', 'flows', 'history', 'smb_app_state_sync', 'smb_message_echoes', 'partner_solutions',
  'payment_configuration_update', 'automatic_events', 'tracking_events'
] as const

export const RELAY_SIGNINGS = ['app', 'own'] as const
export type RelaySigning = typeof RELAY_SIGNINGS[number]

/** Where a workspace's share of Meta's webhook is relayed (CONTRACT.md 18). `own` signs with its secret, encrypted: it must sign. */
export const relayTargets = pgTable('relay_targets', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  url: text('url').notNull(),
  /** Meta's change fields it takes; null: every field, those Meta adds later included */
  fields: jsonb('fields').$type<string[]>(),
  /** the numbers whose `messages` changes it takes; null: all the workspace's */
  phoneNumberIds: jsonb('phone_number_ids').$type<string[]>(),
  signing: text('signing').$type<RelaySigning>().notNull().default('app'),
  /** `rls_…`, encrypted with the token cipher; null for `app` */
  secret: text('secret'),
  createdAt: createdAt(),
  removedAt: timestamp('removed_at', { withTimezone: true })
}, table => [index('relay_targets_workspace').on(table.workspaceId).where(sql`removed_at is null`)])

/**
 * One inbox delivery for one relay target. `body` is the exact bytes sent, Meta's or the target's
 * split of them, so a retry or replay sends them again; it holds message content (CONTRACT.md 17).
 */
export const relayDeliveries = pgTable('relay_deliveries', {
  /** `X-Outbound-Relay-Delivery`: the same on every retry and replay */
  id: id(),
  relayId: text('relay_id').notNull().references(() => relayTargets.id),
  workspaceId: text('workspace_id').notNull(),
  /** the webhook inbox's delivery (its job id, as webhook_kept_aside.job_id) it came from */
  inboxDeliveryId: bigint('inbox_delivery_id', { mode: 'number' }).notNull(),
  body: bytea('body').notNull(),
  status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  lastResponseStatus: integer('last_response_status'),
  lastError: text('last_error'),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  createdAt: createdAt(),
  deliveredAt: timestamp('delivered_at', { withTimezone: true })
}, table => [
  uniqueIndex('relay_deliveries_relay_inbox_delivery').on(table.relayId, table.inboxDeliveryId),
  index('relay_deliveries_workspace_created').on(table.workspaceId, table.createdAt),
  index('relay_deliveries_relay_created').on(table.relayId, table.createdAt),
  index('relay_deliveries_inbox_delivery').on(table.inboxDeliveryId)
])

/**
 * Media of a workspace (CONTRACT.md 13), by the upstream's media id: files uploaded through
 * POST /api/media.php (valid 30 days upstream) and files customers sent (valid 7 days upstream),
 * which the mirror stores content-addressed (by `sha256`) in the media storage.
 */
export const media = pgTable('media', {
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  mediaId: text('media_id').notNull(),
  origin: text('origin').$type<'upload' | 'inbound'>().notNull(),
  phoneNumberId: text('phone_number_id').notNull(),
  /** the inbound message that carried it */
  inboundMessageId: text('inbound_message_id'),
  /** image, video, audio, document or sticker */
  kind: text('kind').notNull(),
  mimeType: text('mime_type'),
  /** null until known (an inbound file's size comes with its media node) */
  fileSize: bigint('file_size', { mode: 'number' }),
  /** lowercase hex of the bytes' SHA-256; an inbound webhook gives it in base64 */
  sha256: text('sha256'),
  filename: text('filename'),
  /** when the mirror stored the bytes (under `sha256`) */
  storedAt: timestamp('stored_at', { withTimezone: true }),
  /** why the mirror gave up (the id expired upstream first) */
  mirrorError: text('mirror_error'),
  /** the end of the upstream id's life */
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
  /** the file name was forgotten and the file removed unless another row still holds it */
  contentPurgedAt: timestamp('content_purged_at', { withTimezone: true })
}, table => [primaryKey({ columns: [table.workspaceId, table.mediaId] })])

/**
 * Who changed what (CONTRACT.md 16): appended in the transaction of the change, never updated or
 * deleted (a trigger refuses both: db/functions/audit_log_append_only.sql). Ids only: no secret, no content.
 */
export const auditLog = pgTable('audit_log', {
  /** arrival order: the dashboard pages by it */
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  actorKind: text('actor_kind').$type<'key' | 'dashboard' | 'cli' | 'system'>().notNull(),
  actorId: text('actor_id'),
  action: text('action').notNull(),
  targetKind: text('target_kind').notNull(),
  targetId: text('target_id').notNull(),
  ip: text('ip')
}, table => [index('audit_log_workspace').on(table.workspaceId, table.id)])

/**
 * A business-scoped user id that the upstream replaced (an inbound `user_changed_user_id` system
 * message, CONTRACT.md 16): sends to the old id go to the new one, and what the old id wrote still
 * opens the new one's service window.
 */
export const userIdLinks = pgTable('user_id_links', {
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  oldUserId: text('old_user_id').notNull(),
  newUserId: text('new_user_id').notNull(),
  linkedAt: timestamp('linked_at', { withTimezone: true }).notNull().defaultNow()
}, table => [
  primaryKey({ columns: [table.workspaceId, table.oldUserId] }),
  index('user_id_links_new').on(table.workspaceId, table.newUserId)
])

/** Recipients a workspace must not send MARKETING templates to (CONTRACT.md 14). */
export const SUPPRESSION_REASONS = ['opt_out_131050', 'user_preferences', 'keyword', 'manual'] as const
export type SuppressionReason = typeof SUPPRESSION_REASONS[number]

export const suppressions = pgTable('suppressions', {
  /** `sup_…`: what the audit log names, never the number */
  id: text('id').notNull(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  recipient: text('recipient').notNull(),
  reason: text('reason').$type<SuppressionReason>().notNull(),
  createdAt: createdAt(),
  /** an erased person's opt-out: `recipient` is then the number's HMAC (src/crypto/opt-out-digest.ts), never the number */
  erased: boolean('erased').notNull().default(false)
}, table => [
  primaryKey({ columns: [table.workspaceId, table.recipient] }),
  uniqueIndex('suppressions_id').on(table.id),
  index('suppressions_workspace_created').on(table.workspaceId, table.createdAt, table.recipient)
])

/** Upstream 131049 (a per-user marketing cap): MARKETING templates to the recipient wait until `until`. */
export const cooldowns = pgTable('cooldowns', {
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  recipient: text('recipient').notNull(),
  until: timestamp('until', { withTimezone: true }).notNull()
}, table => [primaryKey({ columns: [table.workspaceId, table.recipient] })])

/**
 * The messaging limit's rolling count (CONTRACT.md 14): per WABA, each recipient of a template sent
 * outside their service window, with the time of the latest such send. In the window: last_at > now - 24 h.
 */
export const messagingLimitRecipients = pgTable('messaging_limit_recipients', {
  wabaId: text('waba_id').notNull(),
  recipient: text('recipient').notNull(),
  lastAt: timestamp('last_at', { withTimezone: true }).notNull()
}, table => [
  primaryKey({ columns: [table.wabaId, table.recipient] }),
  index('messaging_limit_recipients_window').on(table.wabaId, table.lastAt)
])

/**
 * Rows of messaging_limit_recipients per WABA (expired ones too, until they are pruned): the count a
 * send checks, and the row it locks, instead of counting the window (db/functions/messaging_limit_*.sql:
 * claim, take, give_back, forget_old).
 */
export const messagingLimitCounts = pgTable('messaging_limit_counts', {
  wabaId: text('waba_id').primaryKey(),
  used: integer('used').notNull().default(0)
})

/**
 * GET /api/usage.php's counts, kept by triggers on messages (db/functions/usage_count_*.sql) in the
 * statement that changes a record: per workspace, UTC hour of created_at and recipient's first three
 * digits, the records the upstream accepted (usage_sent: they have a wamid)…
 */
export const usageSent = pgTable('usage_sent', {
  workspaceId: text('workspace_id').notNull(),
  hour: timestamp('hour', { withTimezone: true }).notNull(),
  prefix: text('prefix').notNull(),
  messages: integer('messages').notNull()
}, table => [primaryKey({ name: 'usage_sent_pk', columns: [table.workspaceId, table.hour, table.prefix] })])

/** …and, per pricing category ('unknown' without one), those a status webhook priced (category or billable known). */
export const usagePriced = pgTable('usage_priced', {
  workspaceId: text('workspace_id').notNull(),
  hour: timestamp('hour', { withTimezone: true }).notNull(),
  prefix: text('prefix').notNull(),
  category: text('category').notNull(),
  billable: integer('billable').notNull(),
  free: integer('free').notNull(),
  unpriced: integer('unpriced').notNull()
}, table => [primaryKey({ name: 'usage_priced_pk', columns: [table.workspaceId, table.hour, table.prefix, table.category] })])

/** The last catalog re-sync for an unknown template name, per WABA: at most one a minute, across processes. */
export const templateResyncs = pgTable('template_resyncs', {
  wabaId: text('waba_id').primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull()
})

/** Outbound's own edits of approved templates, counted against Meta's 1 a day and 10 in 30 days (CONTRACT.md 20). */
export const templateEdits = pgTable('template_edits', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  wabaId: text('waba_id').notNull(),
  upstreamId: text('upstream_id').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow()
}, table => [index('template_edits_template_at').on(table.wabaId, table.upstreamId, table.at)])

/** A name the WABA may not use again until `frees_at`: its approved template was deleted (CONTRACT.md 20). */
export const templateNameLocks = pgTable('template_name_locks', {
  wabaId: text('waba_id').notNull(),
  name: text('name').notNull(),
  freesAt: timestamp('frees_at', { withTimezone: true }).notNull()
}, table => [primaryKey({ columns: [table.wabaId, table.name] })])
export const PAUSED_REASONS = ['number_flagged', 'tier_downgraded', 'template_paused', 'template_quality_red', 'failure_rate', 'manual'] as const
export type PausedReason = typeof PAUSED_REASONS[number]

/** A number's quality signals (CONTRACT.md 21): a webhook's event (with its rating when known), or a node read's rating. */
export const qualityHistory = pgTable('quality_history', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  phoneNumberId: text('phone_number_id').notNull(),
  rating: text('rating'),
  event: text('event'),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow()
}, table => [index('quality_history_number_at').on(table.phoneNumberId, table.at)])

export const CAMPAIGN_STATUSES = ['scheduled', 'running', 'paused', 'waiting_for_limit', 'completed', 'cancelled'] as const
export type CampaignStatus = typeof CAMPAIGN_STATUSES[number]

/**
 * A campaign (CONTRACT.md 15): one template to many recipients. Its recipients wait in
 * campaign_recipients; `materialised` is how many of them (in row order) have a message record yet.
 */
export const campaigns = pgTable('campaigns', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  apiKeyId: text('api_key_id'),
  name: text('name').notNull(),
  status: text('status').$type<CampaignStatus>().notNull(),
  template: text('template').notNull(),
  language: text('language').notNull(),
  category: text('category'),
  phoneNumberId: text('phone_number_id').notNull(),
  sendAt: timestamp('send_at', { withTimezone: true }).notNull(),
  /** distinct recipients to send to, rows refused, recipients skipped (opted out) */
  accepted: integer('accepted').notNull(),
  rejected: integer('rejected').notNull(),
  skipped: integer('skipped').notNull(),
  /** the first 100 rejected rows: [{row, field, error}] */
  rejections: jsonb('rejections').$type<Array<{ row: number, field: string, error: string }>>().notNull().default([]),
  materialised: integer('materialised').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
  /** why it is paused (CONTRACT.md 21): a guard's reason or manual; null when not paused */
  pausedReason: text('paused_reason').$type<PausedReason>(),
  /** a guard pause whose cause cleared resumes at this time (src/campaigns/guard); null: not due */
  resumeAfter: timestamp('resume_after', { withTimezone: true }),
  /** the failure rate counts messages finished since then (a person's resume); null: since the start */
  guardSince: timestamp('guard_since', { withTimezone: true })
}, table => [
  index('campaigns_guard_resume').on(table.resumeAfter).where(sql`resume_after is not null`),
  index('campaigns_workspace_created').on(table.workspaceId, table.createdAt, table.id),
  index('campaigns_live_number').on(table.phoneNumberId, table.sendAt).where(sql`status in ('scheduled', 'running', 'waiting_for_limit')`)
])
export type CampaignRecord = typeof campaigns.$inferSelect

/** A campaign's recipients in row order (n from 0), each with its own variables: made into messages a batch at a time. */
export const campaignRecipients = pgTable('campaign_recipients', {
  campaignId: text('campaign_id').notNull(),
  n: integer('n').notNull(),
  recipient: text('recipient').notNull(),
  /** the body's parameters: positional (array) or named (object) */
  variables: jsonb('variables').$type<string[] | Record<string, string>>(),
  clientReference: text('client_reference'),
  contentPurgedAt: timestamp('content_purged_at', { withTimezone: true })
}, table => [primaryKey({ columns: [table.campaignId, table.n] })])

/**
 * A CSV upload from the dashboard awaiting its user's confirmation (CONTRACT.md 15): the checked
 * campaign and its recipients as they will be sent, kept an hour at most (then deleted).
 */
export const campaignUploads = pgTable('campaign_uploads', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  userId: text('user_id').notNull(),
  /** the campaign's fields (NewCampaign; send_at as ISO) */
  campaign: jsonb('campaign').$type<Record<string, unknown>>().notNull(),
  /** [{to, variables, clientReference}] in row order */
  recipients: jsonb('recipients').$type<Array<{ to: string, variables: string[] | Record<string, string> | null, clientReference: string | null }>>().notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull()
}, table => [index('campaign_uploads_expires').on(table.expiresAt)])
export type CampaignUploadRecord = typeof campaignUploads.$inferSelect

export const ERASURE_STATUSES = ['pending', 'completed'] as const
export type ErasureStatus = typeof ERASURE_STATUSES[number]

/**
 * One person's erasure (CONTRACT.md 17). `target` is the number or user id asked for, encrypted
 * with the token cipher, and only until the erasure completes: then it is null and no row names them.
 */
export const erasures = pgTable('erasures', {
  id: id(),
  workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
  status: text('status').$type<ErasureStatus>().notNull(),
  target: text('target'),
  counts: jsonb('counts').$type<Record<string, number>>(),
  requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
  completedAt: timestamp('completed_at', { withTimezone: true })
}, table => [index('erasures_workspace_requested').on(table.workspaceId, table.requestedAt, table.id)])
export type ErasureRecord = typeof erasures.$inferSelect
