import { startEmulator, type FaultScope, type Faults } from '../../src/sandbox/emulator/index.js'
import { serve } from '../child.js'

// The upstream in a process of its own, so that it does not share the event loop of what is measured.
const emulator = await startEmulator({
  throughputMps: Number(process.env.EMULATOR_THROUGHPUT_MPS ?? 100000),
  pairRateBurst: Number(process.env.EMULATOR_PAIR_RATE_BURST ?? 100000),
  pairRateIntervalMs: Number(process.env.EMULATOR_PAIR_RATE_INTERVAL_MS ?? 6000),
  statusDelaysMs: { sent: 0, delivered: 0, read: 0 }
})
emulator.setStatusOptions('global', { statuses: [] })

serve({
  setFaults: (scope: FaultScope, faults: Faults) => emulator.setFaults(scope, faults),
  /** refusals by code, and the acceptance times (ms) since the last reset */
  stats: () => ({ errors: { ...emulator.stats.errors }, accepted: emulator.sentMessages.map(sent => sent.at) }),
  /** the record id of every accepted send (its biz_opaque_callback_data), once per acceptance */
  acceptedIds: () => emulator.sentMessages.map(sent => String((sent.payload as { biz_opaque_callback_data?: unknown }).biz_opaque_callback_data)),
  /** the recipient of every accepted send, once per acceptance */
  acceptedRecipients: () => emulator.sentMessages.map(sent => String(sent.to)),
  /** the wamids `prefix` + from…to received by the number (bench/conversations.ts seeds them straight into the database) */
  knowInbound: (phoneNumberId: string, prefix: string, from: number, to: number) => {
    emulator.knowInbound(phoneNumberId, Array.from({ length: to - from + 1 }, (_, index) => `${prefix}${from + index}`))
  },
  reset: () => {
    emulator.reset()
    emulator.setStatusOptions('global', { statuses: [] })
  }
}, { url: emulator.url })
