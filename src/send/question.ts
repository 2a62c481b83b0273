import type { HoldReason } from '../../db/schema.js'
import { sendOfMessage, sendOfRecord, type Decide, type Stage } from '../audience/decide.js'
import type { AppError } from '../errors.js'
import type { ComposedMessage } from '../messages/compose.js'
import type { ActiveConnection, Connection } from '../store/connections.js'
import type { MessageRecord } from '../store/messages.js'
import { Reservation, type GiveBack } from './reservation.js'

/** The one answer to "may this message go now?": go, holding its reservation; hold with a reason; refuse. */
export type Answer =
  | { go: 'send', reservation: Reservation }
  | { go: 'hold', reason: HoldReason, until: Date, error: AppError }
  | { go: 'refuse', error: AppError }

export interface QuestionDeps {
  /** the audience rules (CONTRACT.md 14) */
  decide: Decide
  /** throws 422 outside_service_window for a free-form message the upstream would refuse (CONTRACT.md 11) */
  checkServiceWindow (connection: Connection, phoneNumberId: string, message: ComposedMessage): Promise<void>
  giveBack: GiveBack
}

export interface From { workspaceId: string, active: ActiveConnection, phoneNumberId: string }

/** A message from a request (the API's, the dashboard's): its service window, then the audience rules. */
export async function ask (deps: QuestionDeps, message: ComposedMessage, from: From, stage: Stage): Promise<Answer> {
  await deps.checkServiceWindow(from.active.connection, from.phoneNumberId, message)
  return answerOf(deps, await deps.decide(sendOfMessage(message, from.workspaceId, from.active, from.phoneNumberId), stage))
}

/** A queued record about to go (the drain): the audience rules again; its window was asked at its hand-over. */
export async function askAgain (deps: QuestionDeps, record: MessageRecord, active: ActiveConnection): Promise<Answer> {
  return answerOf(deps, await deps.decide(sendOfRecord(record, active), 'send'))
}

function answerOf (deps: QuestionDeps, verdict: Awaited<ReturnType<Decide>>): Answer {
  if (verdict.go !== 'send') return verdict
  return { go: 'send', reservation: new Reservation(deps.giveBack, verdict.claim, verdict.slot) }
}
