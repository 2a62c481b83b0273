import { INBOX_QUEUE as INTAKE_QUEUE } from '../webhooks/inbox.js'
import { sql } from 'drizzle-orm'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { rowsOf, type Database } from '../../db/client.js'
import { DELIVERY_QUEUE } from '../events/outbox.js'
import { jobSql } from '../work/jobs.js'


/**
 * CONTRACT.md 11's metrics, in a registry of this app's own (tests build many apps in one
 * process; the global default registry would mix them). Queue figures are read at scrape time.
 */
export function createMetrics (db: Database) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'outbound_' })
  const metrics = {
    registry,
    requests: new Counter({ name: 'outbound_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    sends: new Counter({ name: 'outbound_sends_total', help: 'Sends by outcome and error code (the upstream\'s, or ours)', labelNames: ['outcome', 'code'], registers: [registry] }),
    pacingWait: new Histogram({ name: 'outbound_pacing_wait_seconds', help: 'Time a send waited for its pacing slot', buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry] }),
    deliveries: new Counter({ name: 'outbound_webhook_deliveries_total', help: 'Outgoing webhook delivery attempts by outcome (delivered, retry, failed)', labelNames: ['outcome'], registers: [registry] }),
    statements: new Histogram({ name: 'outbound_db_statement_seconds', help: 'Database statement time', buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry] })
  }
  const depth = new Gauge({ name: 'outbound_queue_depth', help: 'Durable jobs waiting, by queue and sending number (group)', labelNames: ['queue', 'phone_number_id'], registers: [registry] })
  const oldest = new Gauge({ name: 'outbound_work_oldest_job_seconds', help: 'Age of the oldest job not yet done, by queue', labelNames: ['queue'], registers: [registry] })
  const intakeLag = new Gauge({ name: 'outbound_webhook_intake_lag_seconds', help: 'Age of the oldest upstream webhook delivery not yet applied', registers: [registry] })
  const pending = new Gauge({ name: 'outbound_webhook_deliveries_pending', help: 'Outgoing webhook deliveries not yet delivered or failed', registers: [registry] })

  /** Two grouped reads over indexed columns, once per scrape. */
  async function collectQueues (): Promise<void> {
    const jobs = await jobSql.depths(db)
    depth.reset(); oldest.reset(); intakeLag.set(0)
    const oldestOf = new Map<string, number>()
    for (const row of jobs) {
      // a group is a sending number, but for outgoing deliveries, grouped by endpoint (not a label here)
      const labels = { queue: row.queue, phone_number_id: row.queue === DELIVERY_QUEUE ? '' : row.groupKey ?? '' }
      depth.inc(labels, row.count)
      oldestOf.set(row.queue, Math.max(oldestOf.get(row.queue) ?? 0, row.oldestSeconds))
    }
    for (const [queue, seconds] of oldestOf) oldest.set({ queue }, seconds)
    intakeLag.set(oldestOf.get(INTAKE_QUEUE) ?? 0)
    const [row] = rowsOf<{ count: number }>(await db.execute(sql`select count(*)::int as count from webhook_deliveries where status = 'pending'`))
    pending.set(row.count)
  }
  return { ...metrics, collectQueues }
}

export type Metrics = ReturnType<typeof createMetrics>
