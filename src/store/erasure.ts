import { sql, type SQL } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { anyOf } from './any-of.js'
import type { Executor } from '../../db/client.js'
import { jobSql } from '../work/jobs.js'

// The statements of one person's erasure (CONTRACT.md 17), table by table: src/privacy/erase.ts
// runs them in the order of src/privacy/content-map.ts, each in small transactions of its own.

/** Who is erased: their number and user ids (every id linked to them), and the HMAC each is kept as in an opt-out. */
export interface Person {
  workspaceId: string
  ids: string[]
  digests: Record<string, string>
}

const BATCH = 1000
const ERASED_INBOX = 'webhook-inbox'
// an on_reply read mark's job carries the message it marks, its sender's number among it (src/conversations/policy.ts)
const READ_MARKS = 'read-marks'

const numbersOf = (workspaceId: string) => sql`any(array(select phone_number_id from phone_numbers where workspace_id = ${workspaceId}))`
const wabasOf = (workspaceId: string) => sql`any(array(select waba_id from connections where workspace_id = ${workspaceId}))`
/** `text` holds one of the ids: for the raw JSON of kept-aside parts and inbox deliveries */
const mentions = (text: SQL, ids: string[]) => sql`${text} like any(array(select '%' || value || '%' from json_array_elements_text(${JSON.stringify(ids)}::json)))`

/** The ids linked to these, one hop: an inbound message that carried both, or a user-id change. */
export async function linkedIds (tx: Executor, workspaceId: string, ids: string[]): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(await tx.execute(sql`
    select "from" as id from inbound_messages where phone_number_id = ${numbersOf(workspaceId)} and workspace_id = ${workspaceId} and from_user_id = ${anyOf(ids)} and "from" is not null
    union select from_user_id from inbound_messages where phone_number_id = ${numbersOf(workspaceId)} and workspace_id = ${workspaceId} and "from" = ${anyOf(ids)} and from_user_id is not null
    union select new_user_id from user_id_links where workspace_id = ${workspaceId} and old_user_id = ${anyOf(ids)}
    union select old_user_id from user_id_links where workspace_id = ${workspaceId} and new_user_id = ${anyOf(ids)}`))
  return rows.map(row => row.id)
}

/**
 * A batch of the person's records: content purged, `recipient` '' and `wamid` null, erased; their
 * status history without wamid, payload or error text; their Idempotency-Keys deleted. Returns the
 * records' ids and the media ids their payloads named.
 */
export async function eraseMessages (tx: Executor, person: Person): Promise<{ ids: string[], mediaIds: string[] }> {
  const [row] = rowsOf<{ ids: string, media: string }>(await tx.execute(sql`
    with batch as (select id from messages where workspace_id = ${person.workspaceId} and recipient = ${anyOf(person.ids)} order by id limit ${BATCH} for update),
    media as (select distinct m.payload -> m.type ->> 'id' as media_id from messages m join batch b on b.id = m.id where m.payload -> m.type ->> 'id' is not null),
    keys as (delete from idempotency_keys k using messages m, batch b where m.id = b.id and k.workspace_id = m.workspace_id and k.key = m.idempotency_key returning 1),
    history as (update message_events e set wamid = 'erased:' || e.id, payload = '{}'::jsonb, error_text = null from batch b where e.message_id = b.id returning 1),
    erased as (update messages m set recipient = '', wamid = null, error_text = null, erased = true, payload = ${PURGED_PAYLOAD},
        content_purged_at = coalesce(m.content_purged_at, now()), updated_at = now()
      from batch b where m.id = b.id returning m.id)
    select (select coalesce(json_agg(id), '[]')::text from erased) as ids, (select coalesce(json_agg(media_id), '[]')::text from media) as media,
      (select count(*) from keys) + (select count(*) from history) as also`))
  // arrays travel as JSON text: both drivers read that alike
  return { ids: JSON.parse(row.ids) as string[], mediaIds: JSON.parse(row.media) as string[] }
}

/** The stub a purged payload keeps: its type and, for a template, its name and language (metadata). */
export const PURGED_PAYLOAD = sql`jsonb_strip_nulls(jsonb_build_object('type', payload -> 'type',
  'template', case when payload ? 'template' then jsonb_build_object('name', payload #> '{template,name}', 'language', payload #> '{template,language}') end))`

/** A batch of the person's inbound messages deleted, with their media rows; the files' SHA-256s. */
export async function eraseInbound (tx: Executor, person: Person): Promise<{ count: number, files: string[] }> {
  const { workspaceId } = person
  const [row] = rowsOf<{ count: number, files: string }>(await tx.execute(sql`
    with batch as (select id from inbound_messages where phone_number_id = ${numbersOf(workspaceId)} and workspace_id = ${workspaceId}
        and ("from" = ${anyOf(person.ids)} or from_user_id = ${anyOf(person.ids)}) limit ${BATCH}),
    files as (delete from media where workspace_id = ${workspaceId} and inbound_message_id in (select id from batch) returning sha256),
    gone as (delete from inbound_messages where id in (select id from batch) returning 1)
    select (select count(*) from gone)::int as count, (select coalesce(json_agg(sha256), '[]')::text from files where sha256 is not null) as files`))
  return { count: Number(row.count), files: JSON.parse(row.files) as string[] }
}

/** Uploaded media their records named that no other record of the workspace names: rows deleted, SHA-256s returned. */
export async function eraseUploads (tx: Executor, workspaceId: string, mediaIds: string[]): Promise<string[]> {
  if (mediaIds.length === 0) return []
  const rows = rowsOf<{ sha256: string | null }>(await tx.execute(sql`delete from media t where t.workspace_id = ${workspaceId} and t.media_id = ${anyOf(mediaIds)}
    and not exists (select 1 from messages m where m.workspace_id = ${workspaceId} and not m.erased and m.payload -> m.type ->> 'id' = t.media_id)
    returning t.sha256`))
  return rows.flatMap(row => row.sha256 ? [row.sha256] : [])
}

/** Of these files, those no media row holds any more: they may leave the media store. */
export async function unusedFiles (tx: Executor, sha256s: string[]): Promise<string[]> {
  if (sha256s.length === 0) return []
  const used = new Set(rowsOf<{ sha256: string }>(await tx.execute(sql`select distinct sha256 from media where sha256 = ${anyOf(sha256s)} and content_purged_at is null`)).map(row => row.sha256))
  return [...new Set(sha256s)].filter(sha256 => !used.has(sha256))
}

/** Their campaign rows keep their place (the counts and the order stay) and lose the number and variables; their pending CSV uploads go. */
export async function eraseCampaignRows (tx: Executor, person: Person): Promise<number> {
  const { workspaceId } = person
  const rows = rowsOf<{ n: number }>(await tx.execute(sql`update campaign_recipients set recipient = '', variables = null, client_reference = null, content_purged_at = coalesce(content_purged_at, now())
    where campaign_id = any(array(select id from campaigns where workspace_id = ${workspaceId})) and recipient = ${anyOf(person.ids)} returning n`))
  const uploads = rowsOf<{ id: string }>(await tx.execute(sql`delete from campaign_uploads where workspace_id = ${workspaceId}
    and ${mentions(sql`recipients::text`, person.ids.map(id => `"${id}"`))} returning id`))
  return rows.length + uploads.length
}

/** Stored webhook deliveries that mention them: kept-aside parts and dead-lettered inbox deliveries deleted, statuses of no record emptied. */
export async function eraseWebhookDeliveries (tx: Executor, person: Person): Promise<number> {
  const aside = rowsOf(await tx.execute(sql`delete from webhook_kept_aside where ${mentions(sql`event`, person.ids)} returning 1`))
  const inbox = await jobSql.deleteDeadMentioning(tx, ERASED_INBOX, person.ids)
  // what the workspace's relays were given of them, sent or not
  await tx.execute(sql`delete from relay_deliveries where workspace_id = ${person.workspaceId} and ${mentions(sql`convert_from(body, 'UTF8')`, person.ids)}`)
  // statuses for a wamid no record has (kept, never dropped) that name them
  await tx.execute(sql`update message_events set wamid = 'erased:' || id, payload = '{}'::jsonb, error_text = null
    where message_id is null and ${mentions(sql`payload::text`, person.ids)}`)
  return aside.length + inbox
}

/**
 * The bodies of customer events about them (their records' message.* events, what they sent),
 * replaced by the event's type, and their attempts' error texts. contact.erased is left to be sent.
 */
export async function eraseEventBodies (tx: Executor, person: Person, messageIds: string[]): Promise<number> {
  const data = sql`(body::jsonb -> 'data')`
  const rows = rowsOf<{ id: string }>(await tx.execute(sql`update webhook_deliveries set body = json_build_object('type', type)::text, content_purged_at = now()
    where workspace_id = ${person.workspaceId} and type <> 'contact.erased' and content_purged_at is null
      and (${data} ->> 'id' = ${anyOf(messageIds)} or ${data} ->> 'to' = ${anyOf(person.ids)} or ${data} ->> 'recipient_user_id' = ${anyOf(person.ids)}
        or ${data} ->> 'from' = ${anyOf(person.ids)} or ${data} ->> 'from_user_id' = ${anyOf(person.ids)})
    returning id`))
  if (rows.length > 0) await tx.execute(sql`update webhook_delivery_attempts set error = null where delivery_id = ${anyOf(rows.map(row => row.id))}`)
  return rows.length
}

/**
 * Their audience rows: cool-downs, user-id links, conversations and pending read marks deleted; the messaging limit's rows and the
 * opt-outs kept under the HMAC of the id, so the figures stay and an opt-out still refuses.
 */
export async function eraseAudience (tx: Executor, person: Person): Promise<void> {
  const { workspaceId, ids } = person
  const digests = JSON.stringify(ids.map(id => ({ id, digest: person.digests[id] })))
  await tx.execute(sql`delete from cooldowns where workspace_id = ${workspaceId} and recipient = ${anyOf(ids)}`)
  await tx.execute(sql`delete from user_id_links where workspace_id = ${workspaceId} and (old_user_id = ${anyOf(ids)} or new_user_id = ${anyOf(ids)})`)
  await tx.execute(sql`delete from conversations where workspace_id = ${workspaceId} and (person = ${anyOf(ids)} or "to" = ${anyOf(ids)} or recipient_user_id = ${anyOf(ids)})`)
  await jobSql.deleteAllMentioning(tx, READ_MARKS, ids)
  // the counts' rows first, as the messaging limit's functions take them (docs/decisions/035-lock-order.md)
  await tx.execute(sql`select 1 from messaging_limit_counts where waba_id = ${wabasOf(workspaceId)} order by waba_id for update`)
  // a person erased twice has their HMAC's rows already: the later row's time is kept there, and the count loses the duplicate
  await tx.execute(sql`with pairs as (select r.waba_id, r.recipient, r.last_at, v.digest from messaging_limit_recipients r
      join json_to_recordset(${digests}::json) as v(id text, digest text) on r.recipient = v.id where r.waba_id = ${wabasOf(workspaceId)}),
    merged as (update messaging_limit_recipients x set last_at = greatest(x.last_at, p.last_at) from pairs p where x.waba_id = p.waba_id and x.recipient = p.digest returning x.waba_id, p.recipient),
    dropped as (delete from messaging_limit_recipients d using merged m where d.waba_id = m.waba_id and d.recipient = m.recipient returning d.waba_id),
    counted as (update messaging_limit_counts c set used = c.used - n.n from (select waba_id, count(*)::int as n from dropped group by waba_id) n where c.waba_id = n.waba_id returning 1)
    update messaging_limit_recipients r set recipient = p.digest from pairs p
    where r.waba_id = p.waba_id and r.recipient = p.recipient and not exists (select 1 from merged m where m.waba_id = p.waba_id and m.recipient = p.recipient)`)
  await tx.execute(sql`update suppressions s set recipient = v.digest, erased = true from json_to_recordset(${digests}::json) as v(id text, digest text)
    where s.workspace_id = ${workspaceId} and s.recipient = v.id
      and not exists (select 1 from suppressions x where x.workspace_id = s.workspace_id and x.recipient = v.digest)`)
  await tx.execute(sql`delete from suppressions where workspace_id = ${workspaceId} and recipient = ${anyOf(ids)}`)
}
