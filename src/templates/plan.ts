import type { Template } from '../store/templates.js'
import { AppError } from '../errors.js'
import { editRefusal } from './manage.js'
import { sameTemplate } from './normalise.js'
import { templateProblems, type Problem } from './rules.js'

export interface Named { name: string, language: string }
export interface PlanProblem extends Named { field: string, error: string }

export interface TemplatePlan {
  ok: boolean
  create: Named[]
  update: Named[]
  unchanged: number
  delete?: Named[]
  problems: PlanProblem[]
}

/** What a file's template needs: its draft and what the catalog holds for it. */
export interface PlanStep { action: 'create' | 'update', draft: Record<string, unknown>, catalog?: Template }

export interface PlanInput {
  file: unknown[]
  catalog: Template[]
  /** Outbound's edits of each template in the last 30 days, by upstream id */
  edits: Map<string, Date[]>
  /** the WABA's locked names, with when each frees */
  locks: Map<string, Date>
  prune: boolean
  now?: Date
}

// The catalog and a file name a language alike: en_US, en-us and en_us are one.
const languageKey = (language: unknown) => String(language).replace('-', '_').toLowerCase()
const keyOf = (name: unknown, language: unknown) => `${String(name)}\u0000${languageKey(language)}`

/**
 * The plan of `outbound templates plan|apply` (CONTRACT.md 20): pure, so that the same checks as
 * the API (the one validator, edit limits, locked names) run over a whole file without the upstream.
 */
export function planTemplates (input: PlanInput): TemplatePlan & { steps: PlanStep[], deletions: Template[] } {
  const now = input.now ?? new Date()
  const catalog = new Map(input.catalog.map(template => [keyOf(template.name, template.language), template]))
  const seen = new Set<string>()
  const plan = { create: [] as Named[], update: [] as Named[], unchanged: 0, problems: [] as PlanProblem[], steps: [] as PlanStep[] }
  input.file.forEach((entry, index) => {
    const draft = (typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? entry : {}) as Record<string, unknown>
    const named = { name: typeof draft.name === 'string' ? draft.name : `#${index}`, language: typeof draft.language === 'string' ? draft.language : '' }
    const problem = (found: Problem) => plan.problems.push({ ...named, ...found })
    const key = keyOf(draft.name, draft.language)
    if (seen.has(key)) return problem({ field: 'name', error: `${named.name} in ${named.language} appears twice in the file` })
    seen.add(key)
    const problems = templateProblems(entry)
    if (problems.length > 0) return problems.forEach(problem)
    const known = catalog.get(key)
    if (!known) {
      const freesAt = input.locks.get(named.name)
      if (freesAt) return problem({ field: 'name', error: `template_name_locked: ${named.name} can be used again from ${freesAt.toISOString()}` })
      plan.create.push(named)
      return plan.steps.push({ action: 'create', draft })
    }
    if (sameTemplate(draft as { components: unknown, category: unknown }, known)) return plan.unchanged++
    const refusal = editRefusal(known, { components: draft.components, ...(known.status !== 'APPROVED' && { category: draft.category }) }, input.edits.get(known.upstreamId ?? '') ?? [], now)
    if (refusal) return problem({ field: refusal instanceof AppError ? refusal.extra.field ?? 'components' : 'components', error: refusal instanceof AppError ? `${refusal.code}: ${refusal.message}` : refusal.message })
    plan.update.push(named)
    plan.steps.push({ action: 'update', draft, catalog: known })
  })
  const deletions = input.prune ? input.catalog.filter(template => !seen.has(keyOf(template.name, template.language))) : []
  const { steps, ...shown } = plan
  return {
    ok: plan.problems.length === 0,
    ...shown,
    ...(input.prune && { delete: deletions.map(template => ({ name: template.name, language: template.language })) }),
    steps,
    deletions
  }
}
