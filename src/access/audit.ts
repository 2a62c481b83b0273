import { userInfo } from 'node:os'
import type { Database } from '../../db/client.js'
import type { AlsoInTransaction } from '../store/also.js'
import { appendAuditRow, type AuditRow } from '../store/audit-log.js'

/** Every change the audit log records (CONTRACT.md 16). */
export const AUDIT_ACTIONS = [
  'key.created', 'key.revoked', 'workspace.plan_changed', 'connection.connected', 'connection.disconnected',
  'webhook_endpoint.added', 'webhook_endpoint.removed', 'suppression.added', 'suppression.removed',
  'campaign.created', 'campaign.paused', 'campaign.resumed', 'campaign.cancelled', 'user.signed_in',
  'relay.added', 'relay.removed',
  'template.created', 'template.updated', 'template.deleted',
  'workspace.settings_changed',
  'erasure.requested', 'erasure.completed', 'workspace.retention_changed'
] as const
export type AuditAction = typeof AUDIT_ACTIONS[number]

export type TargetKind = 'key' | 'workspace' | 'connection' | 'webhook_endpoint' | 'suppression' | 'campaign' | 'user' | 'relay' | 'template' | 'erasure'

/** Who made a change and from where: an API key, a dashboard user, an operator at the command line, or the service itself. */
export interface Who {
  actor: { kind: 'key' | 'dashboard' | 'cli' | 'system', id: string | null }
  /** the client's address (the proxy's view with TRUST_PROXY); null at the command line */
  ip: string | null
}

/**
 * One entry. `target.id` is always an id of ours (`key_…`, `cmp_…`, a suppression's id): never a
 * phone number, an email address, a secret or any message content.
 */
export interface AuditEntry extends Who {
  workspaceId: string
  action: AuditAction
  target: { kind: TargetKind, id: string }
}

export const actors = {
  /** a request authenticated by an API key (routes with `config.auth: 'apiKey'`) */
  key: (request: { apiKey: { id: string }, ip: string }): Who => ({ actor: { kind: 'key', id: request.apiKey.id }, ip: request.ip }),
  /** a dashboard user, by their user id */
  dashboard: (userId: string, ip: string): Who => ({ actor: { kind: 'dashboard', id: userId }, ip }),
  /** the signed-in dashboard user of a request (routes with `config.dashboard`) */
  account: (request: { account: { user: { id: string } }, ip: string }): Who => actors.dashboard(request.account.user.id, request.ip),
  /** the operating-system account that ran `outbound …` */
  cli: (): Who => ({ actor: { kind: 'cli', id: operator() }, ip: null }),
  /** the service itself: the quality guard's pauses and resumes (CONTRACT.md 21) */
  system: (): Who => ({ actor: { kind: 'system', id: null }, ip: null })
}

export const audit = {
  /** Appends the entry in `tx`, the transaction of the change it records. */
  async record (tx: Pick<Database, 'insert'>, entry: AuditEntry): Promise<void> {
    await appendAuditRow(tx, {
      workspaceId: entry.workspaceId,
      actorKind: entry.actor.kind,
      actorId: entry.actor.id,
      action: entry.action,
      targetKind: entry.target.kind,
      targetId: entry.target.id,
      ip: entry.ip
    })
  },

  /** The entry for a store's change, recorded in its transaction once `target` says what changed. */
  of<T> (who: Who | undefined, action: AuditAction, target: (changed: T) => Pick<AuditEntry, 'workspaceId' | 'target'>): AlsoInTransaction<T> | undefined {
    if (!who) return undefined
    return async (tx, changed) => { await audit.record(tx, { ...who, action, ...target(changed) }) }
  }
}

/** An entry as the CLI and any reader see it. */
export function publicAuditEntry (row: AuditRow) {
  return {
    at: row.at.toISOString(),
    actor: { kind: row.actorKind, id: row.actorId },
    action: row.action,
    target: { kind: row.targetKind, id: row.targetId },
    ip: row.ip
  }
}

function operator (): string | null {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? null
  }
}
