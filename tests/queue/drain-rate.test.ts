import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { percentile } from '../../bench/lib.js'
import { connectedWorkspace, startGateway, type ConnectedWorkspace, type TestGateway } from '../helpers/gateway.js'
import { waitFor } from '../helpers/wait.js'
import { busiestWindow, errorCount, NUMBER, recipient, sendText } from '../pacer/helpers.js'
import { handOver } from './helpers.js'

const TOTAL = 2000
const MPS = 80
// the pacer's slice at 80/s: 8 sends per 102 ms (src/pacer/throughput.ts)
const SLICE_MS = 102

/**
 * One drain of 2,000 queued sends from a STANDARD number against the emulator enforcing 80/s, with
 * live sends in the middle of it (CONTRACT.md 9). Measures a rate: runs last and alone (vitest.config.ts).
 */
describe('queued sends: 2,000 from one number at 80/s, live sends overtaking', () => {
  let gateway: TestGateway
  let workspace: ConnectedWorkspace

  beforeAll(async () => {
    gateway = await startGateway({ env: { RATE_LIMIT_MAX: '100000' } })
    workspace = await connectedWorkspace(gateway)
    gateway.emulator.setStatusOptions('global', { statuses: [] })
  })
  afterAll(async () => { await gateway?.close() })

  it('all handed over within seconds, all sent at ≥ 90% of the limit with no 130429; a live send waits at most ~2 slices', async () => {
    const started = Date.now()
    const answers = await Promise.all(Array.from({ length: TOTAL }, async (_, index) => await handOver(gateway, workspace, { to: recipient(index, '1666') })))
    const handOverSeconds = (Date.now() - started) / 1000
    expect(answers.filter(answer => answer.statusCode !== 202).map(answer => answer.body)).toEqual([])
    // the hand-over does not wait for the drain (25 s at 80/s)
    expect(handOverSeconds).toBeLessThan(10)

    // live sends, one at a time, while the queue drains
    const queuedSent = () => gateway.emulator.sentMessages.filter(sent => sent.to.startsWith('1666')).length
    await waitFor(async () => queuedSent() >= 300, { timeoutMs: 30_000, what: 'the drain under way' })
    const live: number[] = []
    for (let index = 0; index < 9; index++) {
      const before = Date.now()
      const response = await sendText(gateway, workspace, recipient(index, '1777'))
      live.push(Date.now() - before)
      expect(response.statusCode).toBe(200)
      await new Promise(resolve => setTimeout(resolve, 300))
    }
    expect(queuedSent()).toBeLessThan(TOTAL - 200)

    await waitFor(async () => queuedSent() >= TOTAL, { timeoutMs: 60_000, intervalMs: 250, what: 'every queued send upstream' })
    const accepted = gateway.emulator.sentMessages.filter(sent => sent.phoneNumberId === NUMBER).map(sent => sent.at).sort((a, b) => a - b)
    const queuedTimes = gateway.emulator.sentMessages.filter(sent => sent.to.startsWith('1666')).map(sent => sent.at)
    const rate = (TOTAL - 1) / ((Math.max(...queuedTimes) - Math.min(...queuedTimes)) / 1000)
    console.info(`[drain-rate] hand-over ${handOverSeconds.toFixed(2)} s; drain ${rate.toFixed(1)}/s (${(100 * rate / MPS).toFixed(1)}% of ${MPS}); live sends p50 ${percentile(live, 50)} ms, max ${Math.max(...live)} ms`)
    expect(errorCount(gateway, 130429)).toBe(0)
    expect(busiestWindow(accepted)).toBeLessThanOrEqual(MPS)
    expect(rate).toBeGreaterThanOrEqual(0.9 * MPS)
    // a live send takes the next free slot: at most the rest of this slice and the next, plus its own round trip
    expect(percentile(live, 50)).toBeLessThanOrEqual(2 * SLICE_MS + 50)

    const records = await gateway.app.messages.list(workspace.workspaceId, { limit: TOTAL + 100 })
    expect(records.filter(record => record.status !== 'sent')).toEqual([])
  })
})
