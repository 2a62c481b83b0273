import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { rowsOf } from '../../db/client.js'
import { messages } from '../../db/schema.js'
import { jobSql } from '../../src/work/jobs.js'
import { createInbox, INBOX_QUEUE, type OnApplied } from '../../src/webhooks/inbox.js'
import type { AppliedChanges } from '../../src/webhooks/apply.js'
import { createWorkRunner, type WorkRunner } from '../../src/work/runner.js'
import { useTestRuntime } from '../helpers/runtime.js'
import { waitFor } from '../helpers/wait.js'
import { envelope, messagesValue, NUMBER_ID, status } from './helpers.js'

const runtime = useTestRuntime()
const runners: WorkRunner[] = []
afterEach(async () => { await Promise.all(runners.splice(0).map(async runner => await runner.stop(1000))) })

async function inboxWith (onApplied: OnApplied) {
  const db = runtime.current.database.db
  const work = createWorkRunner({ db, worker: 'w-hook', log: pino({ level: 'silent' }) })
  runners.push(work)
  const inbox = createInbox({ work, log: pino({ level: 'silent' }), shared: runtime.current.database.kind === 'postgres', refreshNumbers: () => {}, onApplied })
  work.start()
  return inbox
}

describe('webhook inbox: the onApplied hook (what customer webhooks build on)', () => {
  it('is called inside the batch\'s transaction with the status changes it made, and a throw rolls the batch back to be retried', async () => {
    const { db } = runtime.current.database
    const workspace = await runtime.current.stores.workspaces.create('hook', 'growth')
    await db.insert(messages).values({ id: 'msg_hook', workspaceId: workspace.id, phoneNumberId: NUMBER_ID, recipient: '15550001111', type: 'text', payload: {}, status: 'sent', wamid: 'wamid.hook', attempts: 1 })
    const seen: AppliedChanges[] = []
    let failFirst = true
    const inbox = await inboxWith(async (tx, applied) => {
      // written in the batch's transaction: it commits or rolls back with the status change
      await tx.execute(sql`insert into settings (key, value) values ('hook:seen', ${String(applied.statusChanges.length)})`)
      if (failFirst) { failFirst = false; throw new Error('the outbox is full') }
      seen.push(applied)
    })
    await inbox.store(Buffer.from(JSON.stringify(envelope('messages', messagesValue({ statuses: [status('wamid.hook', 'read', '1795000000')] })))))
    // the job is deleted when the batch commits
    await waitFor(async () => seen.length === 1 && (await jobSql.counts(db, INBOX_QUEUE)).ready === 0, { timeoutMs: 15_000, what: 'the retried batch committed' })
    expect(seen[0].statusChanges).toEqual([expect.objectContaining({ messageId: 'msg_hook', workspaceId: workspace.id, wamid: 'wamid.hook', status: 'read', previousStatus: 'sent' })])
    expect(seen[0]).toMatchObject({ inbound: [], templates: [] })
    expect(rowsOf<{ value: string }>(await db.execute(sql`select value from settings where key = 'hook:seen'`))).toEqual([{ value: '1' }])
    expect(await runtime.current.stores.statusEvents.history('msg_hook')).toHaveLength(1)
  })
})
