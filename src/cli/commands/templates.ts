import { readFile } from 'node:fs/promises'
import { actors } from '../../access/audit.js'
import type { Config } from '../../config.js'
import { AppError } from '../../errors.js'
import type { Runtime } from '../../runtime.js'
import { applyFile, planFile } from '../../templates/apply.js'
import { templatesOfFile } from '../../templates/file.js'
import type { TemplateDeps } from '../../templates/manage.js'
import { CommandError, defineCommand, failing } from '../command.js'
import { integer, optional, text, toggle } from '../flags.js'
import { existingWorkspace } from './workspace.js'

export const templatesPlan = defineCommand({
  summary: 'compares a templates file (YAML or JSON) with the catalog and lists what apply would do; changes nothing; exits 1 when there are problems',
  flags: { workspace: text('ID'), file: text('F'), prune: toggle() },
  async run ({ workspace, file, prune }, runtime) {
    await existingWorkspace(runtime, workspace)
    const { steps, deletions, ...plan } = await explained(async () => await planFile(runtime, workspace, await readTemplates(file), prune))
    return plan.ok ? plan : failing(plan)
  }
})

export const templatesApply = defineCommand({
  summary: 'does what plan prints: creates, edits and (with --prune) deletes templates; --wait S waits up to S seconds for their review; exits 1 on problems, a failed call or a rejection',
  flags: { workspace: text('ID'), file: text('F'), prune: toggle(), wait: optional(integer('S', 0, 86400)) },
  async run ({ workspace, file, prune, wait }, runtime, config) {
    await existingWorkspace(runtime, workspace)
    const result = await explained(async () => await applyFile(await deps(runtime, config), workspace, await readTemplates(file), { prune, waitSeconds: wait }, actors.cli()))
    return result.ok ? result : failing(result)
  }
})

// The upstream's client (got, undici) is loaded only by apply: plan reads the database alone.
async function deps (runtime: Runtime, config: Config): Promise<TemplateDeps> {
  const { createUpstreamClient } = await import('../../upstream/client.js')
  return { stores: runtime.stores, cipher: runtime.cipher, upstream: createUpstreamClient({ baseUrl: config.GRAPH_API_URL, timeoutMs: config.UPSTREAM_TIMEOUT_MS }) }
}

async function readTemplates (file: string): Promise<unknown[]> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new CommandError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  try {
    return templatesOfFile(text)
  } catch (error) {
    throw new CommandError(`${file}: ${(error as Error).message}`)
  }
}

async function explained<T> (action: () => Promise<T>): Promise<T> {
  try {
    return await action()
  } catch (error) {
    if (error instanceof AppError) throw new CommandError(error.message)
    throw error
  }
}
