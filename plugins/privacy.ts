import fp from 'fastify-plugin'
import { configuredStorage } from '../src/media/stores.js'
import { runErasure, type EraseDeps } from '../src/privacy/erase.js'
import { requestErasure, type ErasureRequest } from '../src/privacy/erasures.js'
import { optOutDigester, type Digest } from '../src/privacy/opt-out-key.js'
import { sweepRetention } from '../src/privacy/sweep.js'
import type { ErasureRecord } from '../src/store/erasures.js'

export const ERASURE_QUEUE = 'erasures'
export const SWEEP_QUEUE = 'retention-sweep'
// an erasure of a person with 10,000 records takes seconds; the lease outlives a slow one
const ERASURE_LEASE_MS = 120_000

declare module 'fastify' {
  interface FastifyInstance {
    /** Retention and erasure (CONTRACT.md 17): src/privacy/. */
    privacy: {
      /** what an erased person's opt-out is kept as: the suppression check asks for it too */
      digest: Digest
      /** stores the erasure and its job; the runner's `erasures` task carries it out */
      requestErasure (request: ErasureRequest): Promise<ErasureRecord>
    }
  }
}

/** The erasures on the durable-work runner, and the retention sweep every RETENTION_SWEEP_MS. */
export default fp(async function privacy (app) {
  const digest = await optOutDigester(app.database.db, app.cipher)
  const deps: EraseDeps = { db: app.database.db, erasures: app.erasures, cipher: app.cipher, storage: configuredStorage(app.config), digest, outbox: app.outbox }
  app.decorate('privacy', {
    digest,
    async requestErasure (request) {
      const erasure = await requestErasure(app.erasures, app.cipher, app.work, ERASURE_QUEUE, request)
      app.work.wake(ERASURE_QUEUE)
      return erasure
    }
  })
  app.work.defineLeased(ERASURE_QUEUE, { batch: 1, concurrency: 1, leaseMs: ERASURE_LEASE_MS, pollMs: 500 }, async function erase (job) {
    await runErasure(deps, job.payload.toString('utf8'))
  })
  app.work.defineRecurring(SWEEP_QUEUE, { everyMs: app.config.RETENTION_SWEEP_MS, leaseMs: ERASURE_LEASE_MS }, async function sweep () {
    const swept = await sweepRetention({ db: deps.db, storage: deps.storage, workspaces: app.workspaces })
    if (swept.workspaces > 0) app.log.info({ workspaces: swept.workspaces, purged: swept.purged }, 'retention sweep purged content')
  })
}, { name: 'privacy', dependencies: ['db', 'work', 'events'] })
