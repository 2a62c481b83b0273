import { sql } from 'drizzle-orm'
import { OPEN_STATUSES, sqlStatuses } from '../resources/message-status.js'
import type { KeysetPurge } from '../store/content-purge.js'
import { PURGED_PAYLOAD } from '../store/erasure.js'

/** The purge's counts (CONTRACT.md 17), which are also an erasure's. */
export const COUNTS = ['messages', 'inbound', 'media_files', 'webhook_deliveries', 'event_deliveries', 'campaign_recipients'] as const
export type Count = typeof COUNTS[number]

/** The erasure's steps (src/privacy/erase.ts), each reaching one or more tables. */
export type EraseStep = 'messages' | 'inbound' | 'uploads' | 'campaigns' | 'webhook_deliveries' | 'event_deliveries' | 'audience'

/**
 * What a table holds of a person (CONTRACT.md 17): its content (texts, payloads, variables, raw
 * bytes; `file`: the media store's file a row names) and what names the person (numbers, user ids,
 * wamids). A retention sweep or a purge changes `content` (its `purge`, counted as `count`), an
 * erasure both (its `erase` step). The tests scan a dump of every table listed here.
 */
export interface ContentTable {
  table: string
  content: readonly string[]
  person: readonly string[]
  count?: Count
  purge?: KeysetPurge
  erase: EraseStep
}

const inWorkspace = (workspaceId: string) => sql`t.workspace_id = ${workspaceId}`
const routedTo = (workspaceId: string) => sql`t.route_id in (select phone_number_id from phone_numbers where workspace_id = ${workspaceId}
  union select waba_id from connections where workspace_id = ${workspaceId})`
const unpurged = sql`t.content_purged_at is null`

/** Every table that can hold a person's data or content, in the order an erasure reaches them. Add a new one here. */
export const CONTENT_MAP: readonly ContentTable[] = [
  {
    table: 'idempotency_keys', content: ['response_body'], person: ['response_body'], erase: 'messages'
  },
  {
    table: 'message_events', content: ['payload', 'error_text'], person: ['wamid', 'payload'], erase: 'messages'
  },
  {
    table: 'messages',
    content: ['payload', 'error_text'],
    person: ['recipient', 'wamid'],
    count: 'messages',
    // a record still on its way keeps its payload: the dispatch needs it
    purge: { table: 'messages', at: 'created_at', key: 'id', of: inWorkspace, unpurged: sql`t.content_purged_at is null and t.status not in (${sql.raw(sqlStatuses(OPEN_STATUSES))})`, set: sql`payload = ${PURGED_PAYLOAD}, content_purged_at = now()` },
    erase: 'messages'
  },
  {
    table: 'media',
    content: ['filename', 'file'],
    person: [],
    count: 'media_files',
    // an uploaded file a newer record still uses stays (a mirrored one: unusedFiles)
    purge: {
      table: 'media', at: 'created_at', key: 'media_id', of: inWorkspace,
      unpurged: sql`t.content_purged_at is null and (t.origin = 'inbound' or not exists (select 1 from messages m where m.workspace_id = t.workspace_id
        and m.created_at >= t.created_at and m.content_purged_at is null and m.payload -> m.type ->> 'id' = t.media_id))`,
      set: sql`filename = null, content_purged_at = now()`,
      returns: sql`t.sha256`
    },
    erase: 'uploads'
  },
  {
    table: 'inbound_messages',
    content: ['payload'],
    person: ['from', 'from_user_id', 'wamid'],
    count: 'inbound',
    purge: { table: 'inbound_messages', at: 'received_at', key: 'id', of: inWorkspace, unpurged, set: sql`payload = jsonb_build_object('type', type), content_purged_at = now()` },
    erase: 'inbound'
  },
  // purged campaign by campaign (src/privacy/purge.ts): the rows have no time of their own
  { table: 'campaign_recipients', content: ['variables', 'client_reference'], person: ['recipient'], count: 'campaign_recipients', erase: 'campaigns' },
  { table: 'campaign_uploads', content: ['recipients'], person: ['recipients'], erase: 'campaigns' },
  {
    table: 'webhook_kept_aside',
    content: ['event'],
    person: ['event'],
    count: 'webhook_deliveries',
    purge: { table: 'webhook_kept_aside', at: 'created_at', key: 'id', of: routedTo, unpurged: sql`true` },
    erase: 'webhook_deliveries'
  },
  {
    // the webhook inbox's dead letters (applied deliveries are deleted as they are applied)
    table: 'jobs',
    content: ['payload'],
    person: ['payload'],
    count: 'webhook_deliveries',
    purge: {
      table: 'jobs', at: 'created_at', key: 'id', unpurged: sql`true`,
      of: workspaceId => sql`t.queue = 'webhook-inbox' and t.status = 'dead' and exists (select 1 from phone_numbers p
        where p.workspace_id = ${workspaceId} and position(p.phone_number_id in convert_from(t.payload, 'UTF8')) > 0)`
    },
    erase: 'webhook_deliveries'
  },
  {
    table: 'webhook_deliveries',
    content: ['body'],
    person: ['body'],
    count: 'event_deliveries',
    purge: { table: 'webhook_deliveries', at: 'created_at', key: 'id', of: inWorkspace, unpurged, set: sql`body = json_build_object('type', type)::text, content_purged_at = now()` },
    erase: 'event_deliveries'
  },
  { table: 'webhook_delivery_attempts', content: ['error'], person: [], erase: 'event_deliveries' },
  {
    // Meta's bytes relayed to a workspace's targets (CONTRACT.md 18): a finished delivery goes whole; one still retried stays until it ends
    table: 'relay_deliveries',
    content: ['body'],
    person: ['body'],
    purge: { table: 'relay_deliveries', at: 'created_at', key: 'id', of: inWorkspace, unpurged: sql`t.status <> 'pending'` },
    erase: 'webhook_deliveries'
  },
  { table: 'cooldowns', content: [], person: ['recipient'], erase: 'audience' },
  { table: 'messaging_limit_recipients', content: [], person: ['recipient'], erase: 'audience' },
  { table: 'suppressions', content: [], person: ['recipient'], erase: 'audience' },
  { table: 'user_id_links', content: [], person: ['old_user_id', 'new_user_id'], erase: 'audience' },
  { table: 'conversations', content: [], person: ['person', 'to', 'recipient_user_id'], erase: 'audience' }
]

/**
 * The tables that hold no person's data and no content: ids, settings, counts, metadata. A new
 * table goes in CONTENT_MAP or here, or tests/privacy/content-map.test.ts fails.
 */
export const NO_CONTENT = [
  'workspaces', 'connections', 'phone_numbers', 'api_keys', 'templates', 'settings', 'dispatchers', 'job_groups',
  'users', 'sessions', 'webhook_endpoints', 'audit_log', 'messaging_limit_counts', 'usage_sent', 'usage_priced',
  'template_resyncs', 'quality_history', 'campaigns', 'erasures', 'relay_targets', 'template_edits', 'template_name_locks'
] as const
