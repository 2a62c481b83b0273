import fp from 'fastify-plugin'
import type { GuardSettings } from '../src/campaigns/guard/act.js'
import { guardIntake, limitsBefore, type GuardIntake } from '../src/campaigns/guard/intake.js'
import type { Limit } from '../src/campaigns/guard/rules.js'
import { failureCodes } from '../src/campaigns/guard/rules.js'
import { numbersRead, sweep } from '../src/campaigns/guard/sweep.js'
import type { OnRatings } from '../src/connections/refresh.js'
import { faultCode } from '../src/faults/classify.js'
import type { Transaction } from '../src/work/runner.js'

// "within 5 s" of a signal (CONTRACT.md 21): a pass a second leaves room for a slow one
const SWEEP_MS = 1000

declare module 'fastify' {
  interface FastifyInstance {
    /** The quality guard (CONTRACT.md 21): campaigns that pause before the number is harmed, and resume once it has recovered. */
    qualityGuard: {
      /** in the webhook batch's transaction, before the audience rules apply it: the tiers it may change, as they were */
      limitsBefore (tx: Transaction, applied: GuardIntake): Promise<Map<string, Limit>>
      /** in the same transaction, after: the batch's signals */
      intake (tx: Transaction, applied: GuardIntake, before: Map<string, Limit>): Promise<void>
      /** a read of numbers' nodes: their ratings */
      numbersRead: OnRatings
    }
  }
}

/** The guard's signals from the webhook inbox and the node reads, and its sweep: recoveries that are over, failure rates, tiers that fit again. */
export default fp(async function qualityGuard (app) {
  const { config } = app
  const settings: GuardSettings = {
    on: config.QUALITY_GUARD === 'on',
    recoveryMs: config.QUALITY_GUARD_RECOVERY_MS,
    window: config.QUALITY_GUARD_WINDOW,
    rate: config.QUALITY_GUARD_FAILURE_RATE,
    codes: failureCodes(config.QUALITY_GUARD_FAILURE_CODES)
  }
  const { db } = app.database
  app.decorate('qualityGuard', {
    limitsBefore,
    async intake (tx, applied, before) { await guardIntake(tx, applied, before, settings) },
    async numbersRead (reads) {
      if (await numbersRead(db, reads, settings) > 0) app.outbox.committed()
    }
  })
  if (!settings.on) return

  let running: Promise<void> | undefined
  const timer = setInterval(() => {
    running ??= sweep(db, settings)
      .then(done => {
        if (done.paused + done.resumed > 0) app.outbox.committed()
        if (done.resumed > 0) app.sendQueue?.wake()
      })
      .catch(error => app.log.warn({ code: faultCode(error) }, 'quality guard sweep failed'))
      .finally(() => { running = undefined })
  }, SWEEP_MS)
  timer.unref()
  app.addHook('onClose', async () => {
    clearInterval(timer)
    await running
  })
}, { name: 'quality-guard', dependencies: ['db', 'events'] })
