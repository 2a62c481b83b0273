import type { FastifyInstance } from 'fastify'
import { defaultAccount } from '../../src/sandbox/emulator/index.js'
import { jobSql } from '../../src/work/jobs.js'
import { INBOX_QUEUE } from '../../src/webhooks/inbox.js'
import { waitFor } from '../helpers/wait.js'

const account = defaultAccount()
export const WABA_ID = account.wabaId
export const NUMBER_ID = account.phoneNumbers[0].id

/** Resolves once every stored delivery has been applied (or kept as a dead letter, which the caller checks). */
export async function inboxDrained (app: FastifyInstance): Promise<{ ready: number, running: number, dead: number }> {
  return await waitFor(async () => {
    const counts = await jobSql.counts(app.database.db, INBOX_QUEUE)
    return counts.ready === 0 && counts.running === 0 && counts
  }, { what: 'the webhook inbox drained' })
}

/** The upstream's envelope around one change. */
export function envelope (field: string, value: Record<string, unknown>, wabaId = WABA_ID) {
  return { object: 'whatsapp_business_account', entry: [{ id: wabaId, time: 1_795_000_000, changes: [{ field, value }] }] }
}

/** A `messages` value for our number, as in upstream-facts.md 4.5/4.6. */
export function messagesValue (parts: { statuses?: unknown[], messages?: unknown[], errors?: unknown[], contacts?: unknown[] }) {
  return { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: NUMBER_ID }, ...parts }
}

export function status (wamid: string, name: string, timestamp: unknown, extra: Record<string, unknown> = {}) {
  return { id: wamid, status: name, timestamp, recipient_id: '15551110000', ...extra }
}

export function textMessage (wamid: string, text: string, extra: Record<string, unknown> = {}) {
  return { from: '15557654321', id: wamid, timestamp: '1795000000', type: 'text', text: { body: text }, ...extra }
}
