import type { Template } from '../store/templates.js'

/** T of CONTRACT.md 20: a catalog entry as the API, the CLI and the events show it. */
export function templateView (template: Template) {
  return {
    id: template.upstreamId ?? template.id,
    name: template.name,
    language: template.language,
    category: template.category,
    status: template.status,
    parameter_format: (template.parameterFormat ?? 'POSITIONAL').toLowerCase(),
    components: template.components,
    quality: template.quality,
    rejected_reason: template.rejectedReason,
    updated_at: template.updatedAt.toISOString()
  }
}

export type TemplateView = ReturnType<typeof templateView>
