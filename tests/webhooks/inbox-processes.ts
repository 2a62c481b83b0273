import { sql } from 'drizzle-orm'
import { rowsOf } from '../../db/client.js'
import { messages } from '../../db/schema.js'
import { seedWorkspace, startServer, withRuntime, type RunningServer, type ServerStore } from '../helpers/server.js'
import { postWebhook } from '../helpers/webhook.js'
import { envelope, messagesValue, NUMBER_ID, status, textMessage } from './helpers.js'

export const APP_SECRET = 'inbox-test-app-secret'
// Content that must never reach a log line, however the deliveries are applied.
export const SECRET_TEXT = 'do-not-log-this-text-8e1f'
export const SENDER = '15557000123'

/** `npm start` as a process of its own, logging at debug level: everything it wrote from its first line is its output(). */
export async function startLoggedServer (store: ServerStore): Promise<RunningServer> {
  return await startServer({ ...store.env, APP_SECRET, LOG_LEVEL: 'debug', TEMPLATE_SYNC_INTERVAL_MS: '0' })
}

/** The inbox jobs a server's log says it applied (one line per committed-or-not batch). */
export function appliedJobIds (output: string): number[] {
  return output.split('\n').flatMap(line => {
    if (!line.includes('webhook deliveries applied')) return []
    return (JSON.parse(line) as { jobIds: number[] }).jobIds
  })
}

/** A workspace on the store with `count` sent records (wamids wamid.crash-<i>), and `count` deliveries: each a few statuses for one record plus an inbound message. */
export async function seedDeliveries (store: ServerStore, count: number, statusesEach: number): Promise<{ workspaceId: string, bodies: string[] }> {
  const { workspaceId } = await seedWorkspace(store)
  await withRuntime(store, async ({ database }) => {
    for (let start = 0; start < count; start += 500) {
      await database.db.insert(messages).values(Array.from({ length: Math.min(500, count - start) }, (_, offset) => ({
        id: `msg_crash${start + offset}`, workspaceId, phoneNumberId: NUMBER_ID, recipient: '15551110000', type: 'text', payload: {}, status: 'sent' as const, wamid: `wamid.crash-${start + offset}`, attempts: 1
      })))
    }
  })
  const bodies = Array.from({ length: count }, (_, index) => JSON.stringify(envelope('messages', messagesValue({
    statuses: Array.from({ length: statusesEach }, (_, step) => status(`wamid.crash-${index}`, step === statusesEach - 1 ? 'delivered' : 'sent', String(1_795_000_000 + step))),
    messages: [textMessage(`wamid.crash-in-${index}`, SECRET_TEXT, { from: SENDER })]
  }))))
  return { workspaceId, bodies }
}

/** Posts every body, `concurrency` at a time, to the servers in turn; the answers in the bodies' order. */
export async function postAll (urls: string[], bodies: string[], concurrency: number): Promise<number[]> {
  const answers: number[] = new Array(bodies.length)
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const index = next++
      answers[index] = (await postWebhook(urls[index % urls.length], bodies[index], APP_SECRET)).status
    }
  }))
  return answers
}

export interface InboxState { jobs: number[], dead: number, events: number, inbound: number, delivered: number }

export async function inboxState (store: ServerStore): Promise<InboxState> {
  return await withRuntime(store, async ({ database }) => {
    const count = async (query: ReturnType<typeof sql>) => Number(rowsOf<{ n: number }>(await database.db.execute(query))[0].n)
    return {
      jobs: rowsOf<{ id: string }>(await database.db.execute(sql`select id from jobs where queue = 'webhook-inbox' and status <> 'dead' order by id`)).map(row => Number(row.id)),
      dead: await count(sql`select count(*)::int as n from jobs where status = 'dead'`),
      events: await count(sql`select count(*)::int as n from message_events`),
      inbound: await count(sql`select count(*)::int as n from inbound_messages`),
      delivered: await count(sql`select count(*)::int as n from messages where status = 'delivered'`)
    }
  })
}
