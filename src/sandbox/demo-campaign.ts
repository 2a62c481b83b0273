import type { FastifyInstance } from 'fastify'

// A minute to sign in and open Campaigns before it starts.
const START_IN_MS = 60_000
const RECIPIENTS = 30

/**
 * A small campaign a newcomer can watch (dashboard → Campaigns): 30 recipients of the demo
 * template, one of them the emulator's always-undeliverable number (a failure reason to read) and
 * one row invalid (a rejected row), starting a minute after the sandbox. Seeded once per data dir.
 */
export async function demoCampaign (app: FastifyInstance, workspaceId: string, secret: string): Promise<string | undefined> {
  const existing = await app.campaigns.page(workspaceId, { limit: 1 })
  if (existing && existing.rows.length > 0) return undefined
  const recipients = [
    ...Array.from({ length: RECIPIENTS - 2 }, (_, index) => ({ to: `+1777800${String(index).padStart(4, '0')}`, variables: [`DEMO-${100 + index}`] })),
    { to: '+15550000001', variables: ['DEMO-FAILS'] },
    { to: 'not-a-number', variables: ['DEMO-REJECTED'] }
  ]
  const created = await app.inject({
    method: 'POST',
    url: '/api/campaigns.php',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    payload: { name: 'Demo: order updates', template: 'order_confirmation', language: 'en_US', send_at: new Date(Date.now() + START_IN_MS).toISOString(), recipients }
  })
  if (created.statusCode !== 201) throw new Error(`the demo campaign answered ${created.statusCode}: ${created.body}`)
  return created.json<{ campaign: { id: string } }>().campaign.id
}

export function campaignLine (id: string | undefined): string {
  return id === undefined
    ? '[campaign] the demo campaign of an earlier start is on the dashboard (Campaigns)'
    : `[campaign] demo campaign ${id} (30 recipients) starts in a minute: watch it on the dashboard (Campaigns) or with GET /api/campaigns.php?id=${id}`
}
