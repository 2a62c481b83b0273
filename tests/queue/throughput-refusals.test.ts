import { describe, expect, it } from 'vitest'
import { useGateway } from '../helpers/use-gateway.js'
import { handOver, settled } from './helpers.js'

/**
 * A queued send the upstream refuses with 130429 (the number's throughput reached) was not sent:
 * like a campaign message it waits for the number's next slot and goes again, without spending its
 * attempts (CONTRACT.md 9: the same pacing as section 2; upstream-facts.md 2.3). The gateway paces
 * this number at 50/s; the emulator enforces 10/s, so most first tries are refused.
 */
describe('queued sends: refused for throughput (130429)', () => {
  const ctx = useGateway({ env: { THROUGHPUT_MPS: '50', PAIR_RATE_BURST: '1000', MAX_ATTEMPTS: '2' }, emulator: { throughputMps: 10 } })

  it('every queued send goes once the number has room again: none failed, each recipient once', async () => {
    const { gateway, workspace } = ctx
    const recipients = Array.from({ length: 40 }, (_, index) => `1555710${String(index).padStart(4, '0')}`)
    const ids = await Promise.all(recipients.map(async to => {
      const response = await handOver(gateway, workspace, { to })
      expect(response.statusCode).toBe(202)
      return response.json().id as string
    }))
    const records = await Promise.all(ids.map(async id => await settled(gateway, id, 60_000)))
    // the upstream did refuse some (how many depends on how the hand-overs spread): two refusals of
    // one message would have failed it (MAX_ATTEMPTS=2), as a dozen did before queued sends waited
    expect(gateway.emulator.stats.errors[130429] ?? 0).toBeGreaterThan(0)
    expect(records.filter(record => record.status === 'failed').map(record => record.errorCode)).toEqual([])
    for (const to of recipients) expect(gateway.emulator.sentMessages.filter(message => message.payload.to === to)).toHaveLength(1)
  }, 90_000)
})
