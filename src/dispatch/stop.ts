/** Why a dispatch stopped waiting: the reason its abort signal carries. */
export type StopReason = 'deadline' | 'cancelled' | 'shutdown'

export class DispatchStopped extends Error {
  constructor (readonly reason: StopReason) {
    super(`dispatch stopped: ${reason}`)
  }
}
