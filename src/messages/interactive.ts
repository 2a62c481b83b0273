import { checker, isObject, type Json } from './checks.js'

const check = checker('interactive')

// The upstream's bounds (upstream-facts.md 1.6); list bodies are held to 1024, the stricter of its two figures.
const BODY_MAX = 1024
const HEADER_TEXT_MAX = 60
const FOOTER_MAX = 60

/**
 * Checks reply buttons, lists and CTA URLs against the upstream's bounds; the other interactive
 * types (flow, product, …) are passed through for the upstream to judge.
 */
export function checkInteractive (interactive: Json & { type: string }): void {
  const action = ACTIONS[interactive.type]
  if (!action) return
  check.string(check.object(interactive.body, 'interactive.body').text, 'interactive.body.text', { max: BODY_MAX })
  if (interactive.footer !== undefined) check.string(check.object(interactive.footer, 'interactive.footer').text, 'interactive.footer.text', { max: FOOTER_MAX })
  if (isObject(interactive.header) && interactive.header.type === 'text') check.string(interactive.header.text, 'interactive.header.text', { max: HEADER_TEXT_MAX })
  action(check.object(interactive.action, 'interactive.action'))
}

const ACTIONS: Record<string, ((action: Json) => void) | undefined> = {
  button: checkReplyButtons,
  list: checkList,
  cta_url: checkCtaUrl
}

function checkReplyButtons (action: Json): void {
  const buttons = check.array(action.buttons, 'interactive.action.buttons', { min: 1, max: 3 })
  const titles = new Set<string>()
  const ids = new Set<string>()
  buttons.forEach(function checkButton (entry, index) {
    const path = `interactive.action.buttons[${index}]`
    const button = check.object(entry, path)
    if (button.type !== 'reply') check.fail(`${path}.type`, 'must be reply')
    const reply = check.object(button.reply, `${path}.reply`)
    const title = check.string(reply.title, `${path}.reply.title`, { max: 20 })
    const id = check.string(reply.id, `${path}.reply.id`, { max: 256 })
    if (titles.has(title)) check.fail(`${path}.reply.title`, 'must be unique among the buttons')
    if (ids.has(id)) check.fail(`${path}.reply.id`, 'must be unique among the buttons')
    titles.add(title)
    ids.add(id)
  })
}

function checkList (action: Json): void {
  check.string(action.button, 'interactive.action.button', { max: 20 })
  const sections = check.array(action.sections, 'interactive.action.sections', { min: 1, max: 10 })
  let rows = 0
  sections.forEach(function checkSection (entry, index) {
    const path = `interactive.action.sections[${index}]`
    const section = check.object(entry, path)
    if (section.title !== undefined || sections.length > 1) check.string(section.title, `${path}.title`, { max: 24 })
    check.array(section.rows, `${path}.rows`, { min: 1 }).forEach(function checkRow (row, rowIndex) {
      const rowPath = `${path}.rows[${rowIndex}]`
      const fields = check.object(row, rowPath)
      check.string(fields.id, `${rowPath}.id`, { max: 200 })
      check.string(fields.title, `${rowPath}.title`, { max: 24 })
      if (fields.description !== undefined) check.string(fields.description, `${rowPath}.description`, { max: 72 })
      rows += 1
    })
  })
  if (rows > 10) check.fail('interactive.action.sections', `must hold at most 10 rows in all (got ${rows})`)
}

function checkCtaUrl (action: Json): void {
  if (action.name !== 'cta_url') check.fail('interactive.action.name', 'must be cta_url')
  const parameters = check.object(action.parameters, 'interactive.action.parameters')
  check.string(parameters.display_text, 'interactive.action.parameters.display_text', { max: 20 })
  check.httpUrl(parameters.url, 'interactive.action.parameters.url')
}
