import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { waitFor } from '../helpers/wait.js'
import { expectEnvelope } from '../messages/helpers.js'
import { api, MARKETING, messageOf, sendTo, UTILITY } from './helpers.js'

/** CONTRACT.md 14, usage: the pricing of status webhooks kept on records, and GET /api/usage.php. */
describe('audience: usage', () => {
  const ctx = useGateway()

  it('keeps the status webhooks\' pricing on the record (M.pricing) and counts it per day, category and country', async () => {
    const { gateway, workspace } = ctx
    const ids: string[] = []
    for (const [to, fields] of [['15551110001', UTILITY], ['15551110002', UTILITY], ['447700900001', MARKETING], ['5511999990001', { body: 'a reply' }]] as const) {
      const response = await sendTo(gateway, workspace, to, fields)
      expect(response.statusCode).toBe(200)
      ids.push(response.json().id)
    }
    const priced = await waitFor(async () => {
      const messages = await Promise.all(ids.map(async id => await messageOf(gateway, workspace, id)))
      return messages.every(message => message.pricing !== null) ? messages : undefined
    }, { timeoutMs: 15_000, what: 'pricing on every record' })
    expect(priced[0].pricing).toMatchObject({ billable: true, pricing_model: 'PMP', category: 'utility' })
    expect(priced[3].pricing).toMatchObject({ billable: false, category: 'service' })

    const today = new Date().toISOString().slice(0, 10)
    const byDay = (await api(gateway, workspace, 'GET', '/api/usage.php')).json()
    expect(byDay).toEqual({ ok: true, rows: [{ day: today, billable: 3, free: 1, unpriced: 0, messages: 4 }] })
    const byCategory = (await api(gateway, workspace, 'GET', '/api/usage.php?group=category')).json().rows
    expect(byCategory).toEqual([
      { category: 'marketing', billable: 1, free: 0, unpriced: 0, messages: 1 },
      { category: 'service', billable: 0, free: 1, unpriced: 0, messages: 1 },
      { category: 'utility', billable: 2, free: 0, unpriced: 0, messages: 2 }
    ])
    const byCountry = (await api(gateway, workspace, 'GET', '/api/usage.php?group=country')).json().rows
    expect(byCountry).toEqual([
      { country: 'BR', billable: 0, free: 1, unpriced: 0, messages: 1 },
      { country: 'GB', billable: 1, free: 0, unpriced: 0, messages: 1 },
      { country: 'US', billable: 2, free: 0, unpriced: 0, messages: 2 }
    ])
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
    expect((await api(gateway, workspace, 'GET', `/api/usage.php?since=${day(1)}&until=${day(2)}`)).json().rows).toEqual([])
    expect(expectEnvelope(await api(gateway, workspace, 'GET', `/api/usage.php?since=${day(1)}`), 422, 'invalid_request').field).toBe('since')
  })

  it('a message no status webhook has priced yet counts as unpriced, not as free (billable + free + unpriced = messages)', async () => {
    const { gateway, workspace } = ctx
    const to = '15551120001'
    gateway.emulator.setStatusOptions({ recipient: to }, { statuses: [] })
    const response = await sendTo(gateway, workspace, to, UTILITY)
    expect(response.statusCode).toBe(200)
    expect((await messageOf(gateway, workspace, response.json().id)).pricing).toBeNull()
    const rows = (await api(gateway, workspace, 'GET', '/api/usage.php?group=category')).json().rows as Array<Record<string, number | string>>
    expect(rows.find(row => row.category === 'unknown')).toEqual({ category: 'unknown', billable: 0, free: 0, unpriced: 1, messages: 1 })
    for (const row of rows) expect(Number(row.billable) + Number(row.free) + Number(row.unpriced)).toBe(row.messages)
  })

  it('a malformed since, until or group is a 422 naming it', async () => {
    const { gateway, workspace } = ctx
    for (const [query, field] of [['since=yesterday', 'since'], ['until=2026-02-30', 'until'], ['group=week', 'group'], ['since=0000-01-01', 'since']]) {
      expect(expectEnvelope(await api(gateway, workspace, 'GET', `/api/usage.php?${query}`), 422, 'invalid_request').field).toBe(field)
    }
  })

  it('needs the usage:read scope', async () => {
    const { gateway, workspace } = ctx
    const { secret } = await gateway.app.keys.create(workspace.workspaceId, 'send only', { scopes: ['messages:send'] })
    for (const url of ['/api/usage.php', '/api/limits.php']) {
      expectEnvelope(await gateway.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } }), 403, 'insufficient_scope')
    }
  })
})
