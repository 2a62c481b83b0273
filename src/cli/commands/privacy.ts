import { actors } from '../../access/audit.js'
import type { Config } from '../../config.js'
import { configuredStorage } from '../../media/stores.js'
import { runErasure } from '../../privacy/erase.js'
import { erasureView, requestErasure } from '../../privacy/erasures.js'
import { optOutDigester } from '../../privacy/opt-out-key.js'
import { purgeContent } from '../../privacy/purge.js'
import { changeRetention, retentionDaysOf } from '../../privacy/retention.js'
import { publicWorkspace } from '../../resources/workspace.js'
import type { Runtime } from '../../runtime.js'
import { CommandError, defineCommand } from '../command.js'
import { duration, optional, present, text, UsageError, type Flag } from '../flags.js'
import { recipientOf } from './suppressions.js'
import { existingWorkspace } from './workspace.js'

const days: Flag<number | null> = {
  placeholder: 'N|none',
  required: true,
  parse (value, name) {
    const days = retentionDaysOf(text('N|none').parse(value, name), 'none')
    if (days === undefined) throw new UsageError(`--${name} must be a number of days from 1 to 3650, or none`)
    return days
  }
}

export const workspaceRetention = defineCommand({
  summary: 'sets how many days a workspace\'s content is kept (none: for ever); older content is purged by the retention sweep',
  flags: { workspace: text('ID'), days },
  async run ({ workspace, days }, runtime) {
    await existingWorkspace(runtime, workspace)
    const updated = await changeRetention(runtime.stores.workspaces, actors.cli(), workspace, days)
    return publicWorkspace(updated!)
  }
})

export const purge = defineCommand({
  summary: 'purges a workspace\'s content older than D (90d, 12h, 30m, 0s) now; --dry-run counts it',
  flags: { workspace: text('ID'), 'older-than': duration('D'), 'dry-run': present() },
  async run ({ workspace, 'older-than': olderThan, 'dry-run': dryRun }, runtime, config) {
    await existingWorkspace(runtime, workspace)
    const purged = await purgeContent({ db: runtime.database.db, storage: configuredStorage(config) },
      { workspaceId: workspace, before: new Date(Date.now() - olderThan) }, { dryRun })
    return { ok: true, purged }
  }
})

export const erase = defineCommand({
  summary: 'erases one person (--to a number or --recipient a user id) from a workspace and waits until it is done',
  flags: { workspace: text('ID'), to: optional(text('N')), recipient: optional(text('USER_ID')) },
  async run ({ workspace, to, recipient }, runtime, config) {
    await existingWorkspace(runtime, workspace)
    const deps = await eraseDeps(runtime, config)
    // carried out here, not by a server's task: the embedded database has one process at a time
    const asked = await requestErasure(deps.erasures, deps.cipher, { enqueue: async () => [] }, '', { workspaceId: workspace, recipient: recipientOf({ to, recipient }, true), who: actors.cli() })
    const done = await runErasure(deps, asked.id)
    if (!done) throw new CommandError('the erasure disappeared while it ran')
    return erasureView(done)
  }
})

async function eraseDeps (runtime: Runtime, config: Config) {
  const db = runtime.database.db
  return { db, erasures: runtime.stores.erasures, cipher: runtime.cipher, storage: configuredStorage(config), digest: await optOutDigester(db, runtime.cipher), outbox: runtime.stores.outbox }
}
