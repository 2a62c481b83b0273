import type { WabaState } from './accounts.js'
import type { EmulatorContext } from './context.js'
import type { Json } from './json.js'
import { scheduleStatuses } from './status-webhooks.js'
import type { EmulatedNumber } from './types.js'
import type { OutgoingMessage } from './validate-message.js'
import { newWamid } from './wamid.js'

/** Records an accepted send and, when the WABA has a callback, schedules its status webhooks. */
export function acceptSend (context: EmulatorContext, waba: WabaState, number: EmulatedNumber, message: OutgoingMessage, payload: Json, category?: string): string {
  const wamid = newWamid(message.to)
  const at = Date.now()
  context.sentMessages.push({ wamid, phoneNumberId: number.id, to: message.to, payload, at })
  context.stats.accepted[number.id] = (context.stats.accepted[number.id] ?? 0) + 1
  if (waba.callback) {
    const options = context.statusOptions.resolve(message.to)
    scheduleStatuses(context.webhooks, waba.callback, options, { wamid, waba, number, to: message.to, at, bizOpaque: message.bizOpaque, category, userId: message.userId })
  }
  return wamid
}
