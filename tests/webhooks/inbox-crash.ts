import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServerStore } from '../helpers/server.js'
import { waitFor } from '../helpers/wait.js'
import { appliedJobIds, inboxState, postAll, SECRET_TEXT, seedDeliveries, SENDER, startLoggedServer } from './inbox-processes.js'

/**
 * Deliveries acknowledged (200) but not yet applied when the process is killed (SIGKILL) are all
 * applied after a restart, each once. On PostgreSQL a transaction of the test's own holds a lock
 * the apply needs, so that none is applied before the kill; the embedded database has a single
 * connection, so there the process is killed as soon as the last 200 arrives: the inbox gathers
 * deliveries for 50 ms before applying them, so the last ones are still stored only — the test
 * checks that some were.
 */
export function describeInboxCrash (backend: string, open: () => Promise<ServerStore>, options: { deliveries: number, statusesEach: number }, skip = false): void {
  describe(`webhook inbox: kill -9 with deliveries stored and not applied, then a restart (${backend})`, () => {
    let store: ServerStore
    beforeAll(async () => { if (!skip) store = await open() })
    afterAll(async () => { await store?.close() })

    it.skipIf(skip)('applies every stored delivery after the restart, none twice, and logs no content', async () => {
      const { bodies } = await seedDeliveries(store, options.deliveries, options.statusesEach)
      const blocker = store.kind === 'postgres' ? postgres(store.env.DATABASE_URL, { max: 1, onnotice: () => {} }) : undefined
      const held = await blocker?.reserve()
      await held?.unsafe('begin')
      await held?.unsafe('lock table message_events in share mode')

      const first = await startLoggedServer(store)
      const answers = await postAll([first.url], bodies, 32)
      await first.kill()
      await held?.unsafe('rollback')
      held?.release()
      await blocker?.end()
      expect(answers.filter(answer => answer !== 200)).toEqual([])

      const before = await inboxState(store)
      expect(before.jobs.length).toBeGreaterThan(0)
      if (store.kind === 'postgres') expect(before).toMatchObject({ jobs: expect.any(Array), events: 0, inbound: 0 })

      const second = await startLoggedServer(store)
      try {
        await waitFor(async () => appliedJobIds(second.output()).length >= before.jobs.length, { timeoutMs: 60_000, what: 'the stored deliveries applied' })
      } finally {
        await second.stop()
      }
      const after = await inboxState(store)
      expect(after).toEqual({ jobs: [], dead: 0, events: options.deliveries * options.statusesEach, inbound: options.deliveries, delivered: options.deliveries })
      // exactly the deliveries left by the kill, each applied once
      expect(appliedJobIds(second.output()).sort((a, b) => a - b)).toEqual(before.jobs)
      const output = first.output() + second.output()
      expect(output).toContain('webhook delivery stored')
      expect(output).not.toContain(SECRET_TEXT)
      expect(output).not.toContain(SENDER)
    }, 180_000)
  })
}
