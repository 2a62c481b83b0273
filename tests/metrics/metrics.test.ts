import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { startGateway } from '../helpers/gateway.js'
import { useGateway } from '../helpers/use-gateway.js'

const TOKEN = 'metrics-token-0123456789'

/** Prometheus text format → { 'name{labels}': value }, checking every sample line parses. */
function parse (text: string): Map<string, number> {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line)
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`)
    samples.set(match[1], Number(match[2]))
  }
  return samples
}

describe('GET /metrics', () => {
  const ctx = useGateway({ env: { METRICS_TOKEN: TOKEN } })

  it('answers 401 without the token or with a wrong one', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${TOKEN}`]) {
      const response = await fetch(`${ctx.gateway.url}/metrics`, { headers: authorization ? { authorization } : {} })
      expect(response.status).toBe(401)
      expect(await response.json()).toMatchObject({ ok: false, code: 'unauthorized' })
    }
  })

  it('is scraped and parsed: requests, sends by outcome and code, pacing wait, queues, intake lag, deliveries, statement time', async () => {
    for (const to of ['15551234567', '15550000001']) {
      await fetch(`${ctx.gateway.url}/api/messages.php`, { method: 'POST', headers: { authorization: ctx.workspace.authorization, 'content-type': 'application/json' }, body: JSON.stringify({ to, body: 'metrics' }) })
    }
    // a job waiting in a per-number queue (no task takes this one)
    await ctx.gateway.app.database.db.execute(sql`insert into jobs (queue, group_key, payload, created_at) values ('metrics-probe', '106540352242922', '\\x00'::bytea, now() - interval '5 seconds')`)
    const response = await fetch(`${ctx.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const samples = parse(await response.text())
    expect(samples.get('outbound_http_requests_total{method="POST",route="/api/messages.php",status="200"}')).toBe(1)
    expect(samples.get('outbound_http_requests_total{method="POST",route="/api/messages.php",status="502"}')).toBe(1)
    expect(samples.get('outbound_sends_total{outcome="sent",code=""}')).toBe(1)
    expect(samples.get('outbound_sends_total{outcome="failed",code="131026"}')).toBe(1)
    expect(samples.get('outbound_pacing_wait_seconds_count')).toBe(2)
    expect(samples.get('outbound_db_statement_seconds_count')).toBeGreaterThan(0)
    // the emulator's status webhooks may still be in the inbox: a lag, but a short one
    expect(samples.get('outbound_webhook_intake_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(samples.get('outbound_webhook_intake_lag_seconds')).toBeLessThan(5)
    expect(samples.get('outbound_webhook_deliveries_pending')).toBe(0)
    expect(samples.has('outbound_process_resident_memory_bytes')).toBe(true)
    expect(samples.get('outbound_queue_depth{queue="metrics-probe",phone_number_id="106540352242922"}')).toBe(1)
    expect(samples.get('outbound_work_oldest_job_seconds{queue="metrics-probe"}')).toBeGreaterThanOrEqual(5)
  })

  it('is 404 when METRICS_TOKEN is unset', async () => {
    const plain = await startGateway()
    try {
      const response = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ ok: false, code: 'not_found' })
    } finally {
      await plain.close()
    }
  })
})
