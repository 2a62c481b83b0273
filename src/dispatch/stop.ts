/** Why a dispatch stopped waiting: the reason its abort signal carries. */
export type StopReason = 'deadline' | 'cancelled' | 'shutdown'

export class DispatchStopped extends Error {
  constructor (readonly reason: StopReason) {
    super(`dispatch stopped: ${reason}`)
  }
}

/** A queued send left undone and its record untouched: `requeue` (shutdown came before its first attempt) or `withdrawn` (no longer queued when its slot came). */
export class QueuedSendLeft extends Error {
  constructor (readonly reason: 'requeue' | 'withdrawn') {
    super(`queued send left: ${reason}`)
  }
}
