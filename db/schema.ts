import { sql } from 'drizzle-orm'
import { bigint, boolean, customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

const id = () => text('id').primaryKey()
// postgres.js reads bytea as a Buffer, PGlite as a Uint8Array: callers get a Buffer either way.
const bytea = customType<{ data: Buffer, driverData: Uint8Array }>({ dataType: () => 'bytea', fromDriver: value => Buffer.from(value) })
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow()
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow()

export const PLANS = ['free', 'starter', 'growth', 'scale'] as const
export type Plan = typeof PLANS[number]

export const workspaces = pgTable('workspaces', {
  id: id(),
  name: text('name').notNull(),
  plan: text('plan').$type<Plan>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt()
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
  /** the upstream's listing order: position 0 is the workspace's default sender */
  position: integer('position').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt()
}, table => [
  uniqueIndex('phone_numbers_connection_number').on(table.connectionId, table.phoneNumberId),
  index('phone_numbers_phone_number_id').on(table.phoneNumberId),
  index('phone_numbers_workspace_position').on(table.workspaceId, table.position)
])

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
  revokedAt: timestamp('revoked_at', { withTimezone: true })
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
  components: jsonb('components').$type<unknown[]>().notNull().default([]),
  updatedAt: updatedAt()
}, table => [
  uniqueIndex('templates_workspace_name_language').on(table.workspaceId, table.name, table.language),
  index('templates_waba_name').on(table.wabaId, table.name)
])

/** queued → sending → sent | failed for queued sends (CONTRACT.md 9); pending → sent | failed for the others */
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
  createdAt: createdAt(),
  updatedAt: updatedAt()
}, table => [
  index('messages_workspace_created').on(table.workspaceId, table.createdAt),
  index('messages_workspace_status_created').on(table.workspaceId, table.status, table.createdAt),
  index('messages_pending_dispatcher').on(table.dispatcherId).where(sql`status in ('pending', 'sending')`),
  index('messages_queued').on(table.workspaceId, table.phoneNumberId, table.createdAt).where(sql`status = 'queued'`)
])

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
  from: text('from').notNull(),
  type: text('type').notNull(),
  payload: jsonb('payload').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
  createdAt: createdAt()
}, table => [
  index('inbound_messages_workspace_received').on(table.workspaceId, table.receivedAt),
  // the service window: has this sender written to this number lately?
  index('inbound_messages_number_from_received').on(table.phoneNumberId, table.from, table.receivedAt)
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

/** Queued sends (src/messages/queue.ts): the process draining each number's queue, one at a time, under a lease it renews. */
export const queueDrainers = pgTable('queue_drainers', {
  phoneNumberId: text('phone_number_id').primaryKey(),
  holder: text('holder').notNull(),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }).notNull()
})

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
  index('jobs_claimable').on(table.queue, table.groupKey, table.id).where(sql`status <> 'dead'`),
  index('jobs_dead').on(table.queue, table.createdAt).where(sql`status = 'dead'`)
])
