import { describe, expect, it } from 'vitest'
import { nextEditAt } from '../../src/templates/edit-limits.js'
import { normalComponents } from '../../src/templates/normalise.js'
import { templateProblems } from '../../src/templates/rules.js'
import { orderUpdate } from './helpers.js'

type Change = (template: any) => void
const body = (text: string, example?: unknown) => ({ type: 'BODY', text, ...(example !== undefined && { example }) })
const withComponents = (...components: unknown[]): Change => template => { template.components = components }
const buttons = (...list: unknown[]): Change => template => { template.components = [body('Hi'), { type: 'BUTTONS', buttons: list }] }
const quick = (text = 'Yes') => ({ type: 'QUICK_REPLY', text })
const url = (address = 'https://example.com/a') => ({ type: 'URL', text: 'Open', url: address })

/** Each rule of CONTRACT.md 20 with a template that keeps it and one that breaks it, at the path named. */
const RULES: Array<{ rule: string, valid: Change, invalid: Change, field: string }> = [
  { rule: 'name pattern', valid: t => { t.name = 'order_2' }, invalid: t => { t.name = 'Order-2' }, field: 'name' },
  { rule: 'name length', valid: t => { t.name = 'a'.repeat(512) }, invalid: t => { t.name = 'a'.repeat(513) }, field: 'name' },
  { rule: 'language', valid: t => { t.language = 'pt_BR' }, invalid: t => { t.language = 'english please' }, field: 'language' },
  { rule: 'category', valid: t => { t.category = 'marketing' }, invalid: t => { t.category = 'PROMO' }, field: 'category' },
  { rule: 'parameter_format', valid: t => { t.parameter_format = 'POSITIONAL' }, invalid: t => { t.parameter_format = 'numbered' }, field: 'parameter_format' },
  { rule: 'a body is required', valid: withComponents(body('Hi')), invalid: withComponents({ type: 'FOOTER', text: 'Bye' }), field: 'components' },
  { rule: 'component type', valid: withComponents(body('Hi')), invalid: withComponents(body('Hi'), { type: 'SIDEBAR' }), field: 'components[1].type' },
  { rule: 'one header', valid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'A' }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'A' }, { type: 'HEADER', format: 'TEXT', text: 'B' }, body('Hi')), field: 'components[1].type' },
  { rule: 'one body', valid: withComponents(body('Hi')), invalid: withComponents(body('Hi'), body('Again')), field: 'components[1].type' },
  { rule: 'one footer', valid: withComponents(body('Hi'), { type: 'FOOTER', text: 'A' }), invalid: withComponents(body('Hi'), { type: 'FOOTER', text: 'A' }, { type: 'FOOTER', text: 'B' }), field: 'components[2].type' },
  { rule: 'header format', valid: withComponents({ type: 'HEADER', format: 'location' }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'HOLOGRAM' }, body('Hi')), field: 'components[0].format' },
  { rule: 'media header handle', valid: withComponents({ type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW'] } }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'IMAGE' }, body('Hi')), field: 'components[0].example' },
  { rule: 'header ≤ 60', valid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'h'.repeat(60) }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'h'.repeat(61) }, body('Hi')), field: 'components[0].text' },
  { rule: 'header ≤ 1 placeholder', valid: withComponents({ type: 'HEADER', format: 'TEXT', text: '{{1}}', example: { header_text: ['a'] } }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'TEXT', text: '{{1}} {{2}}', example: { header_text: ['a', 'b'] } }, body('Hi')), field: 'components[0].text' },
  { rule: 'header example', valid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['1'] } }, body('Hi')), invalid: withComponents({ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' }, body('Hi')), field: 'components[0].example' },
  { rule: 'body ≤ 1024 (placeholders counted as written)', valid: withComponents(body('b'.repeat(1019) + '{{1}}', { body_text: [['x']] })), invalid: withComponents(body('b'.repeat(1020) + '{{1}}', { body_text: [['x']] })), field: 'components[0].text' },
  { rule: 'body text', valid: withComponents(body('Hi')), invalid: withComponents(body('  ')), field: 'components[0].text' },
  { rule: 'body example count', valid: withComponents(body('{{1}} {{2}}', { body_text: [['a', 'b']] })), invalid: withComponents(body('{{1}} {{2}}', { body_text: [['a']] })), field: 'components[0].example' },
  { rule: 'positional in order', valid: withComponents(body('{{1}} then {{2}}', { body_text: [['a', 'b']] })), invalid: withComponents(body('{{1}} then {{3}}', { body_text: [['a', 'b']] })), field: 'components[0].text' },
  { rule: 'positional, not names', valid: withComponents(body('{{1}}', { body_text: [['a']] })), invalid: withComponents(body('{{first_name}}', { body_text: [['a']] })), field: 'components[0].text' },
  { rule: 'mismatched braces', valid: withComponents(body('Hi {{1}}', { body_text: [['a']] })), invalid: withComponents(body('Hi {{1}', { body_text: [['a']] })), field: 'components[0].text' },
  {
    rule: 'named placeholders are lowercase names',
    valid: t => { t.parameter_format = 'named'; t.components = [body('Hi {{first_name}}', { body_text_named_params: [{ param_name: 'first_name', example: 'Pablo' }] })] },
    invalid: t => { t.parameter_format = 'named'; t.components = [body('Hi {{FirstName}}', { body_text_named_params: [{ param_name: 'FirstName', example: 'Pablo' }] })] },
    field: 'components[0].text'
  },
  {
    rule: 'named placeholders are unique',
    valid: t => { t.parameter_format = 'named'; t.components = [body('{{a}} {{b}}', { body_text_named_params: [{ param_name: 'a', example: '1' }, { param_name: 'b', example: '2' }] })] },
    invalid: t => { t.parameter_format = 'named'; t.components = [body('{{a}} {{a}}', { body_text_named_params: [{ param_name: 'a', example: '1' }] })] },
    field: 'components[0].text'
  },
  {
    rule: 'named examples',
    valid: t => { t.parameter_format = 'named'; t.components = [body('{{a}}', { body_text_named_params: [{ param_name: 'a', example: '1' }] })] },
    invalid: t => { t.parameter_format = 'named'; t.components = [body('{{a}} {{b}}', { body_text_named_params: [{ param_name: 'a', example: '1' }] })] },
    field: 'components[0].example'
  },
  { rule: 'footer ≤ 60', valid: withComponents(body('Hi'), { type: 'FOOTER', text: 'f'.repeat(60) }), invalid: withComponents(body('Hi'), { type: 'FOOTER', text: 'f'.repeat(61) }), field: 'components[1].text' },
  { rule: 'footer without placeholders', valid: withComponents(body('Hi'), { type: 'FOOTER', text: 'Bye' }), invalid: withComponents(body('Hi'), { type: 'FOOTER', text: 'Bye {{1}}' }), field: 'components[1].text' },
  { rule: '≤ 10 buttons', valid: buttons(...Array.from({ length: 10 }, () => quick())), invalid: buttons(...Array.from({ length: 11 }, () => quick())), field: 'components[1].buttons' },
  { rule: 'button type', valid: buttons(quick()), invalid: buttons({ type: 'TELEPORT', text: 'Go' }), field: 'components[1].buttons[0].type' },
  { rule: 'quick replies together', valid: buttons(quick(), quick(), url()), invalid: buttons(quick(), url(), quick()), field: 'components[1].buttons[1].type' },
  { rule: '≤ 2 URL buttons', valid: buttons(url(), url()), invalid: buttons(url(), url(), url()), field: 'components[1].buttons[2].type' },
  { rule: 'URL placeholder only at the end', valid: buttons({ ...url('https://example.com/t/{{1}}'), example: ['42'] }), invalid: buttons({ ...url('https://example.com/{{1}}/t'), example: ['42'] }), field: 'components[1].buttons[0].url' },
  { rule: 'URL placeholder example', valid: buttons({ ...url('https://example.com/t/{{1}}'), example: ['42'] }), invalid: buttons(url('https://example.com/t/{{1}}')), field: 'components[1].buttons[0].example' },
  { rule: 'URL address', valid: buttons(url('https://example.com')), invalid: buttons(url('example dot com')), field: 'components[1].buttons[0].url' },
  { rule: '≤ 1 phone number button', valid: buttons({ type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550001' }), invalid: buttons({ type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550001' }, { type: 'PHONE_NUMBER', text: 'Call 2', phone_number: '15550002' }), field: 'components[1].buttons[1].type' },
  { rule: 'phone number', valid: buttons({ type: 'PHONE_NUMBER', text: 'Call', phone_number: '+15550001' }), invalid: buttons({ type: 'PHONE_NUMBER', text: 'Call', phone_number: 'call me' }), field: 'components[1].buttons[0].phone_number' },
  { rule: '≤ 1 copy code button', valid: buttons({ type: 'COPY_CODE', example: '250FF' }), invalid: buttons({ type: 'COPY_CODE', example: '250FF' }, { type: 'COPY_CODE', example: '10OFF' }), field: 'components[1].buttons[1].type' },
  { rule: 'button text ≤ 25', valid: buttons(quick('t'.repeat(25))), invalid: buttons(quick('t'.repeat(26))), field: 'components[1].buttons[0].text' },
  { rule: 'button text required', valid: buttons(quick('Yes')), invalid: buttons({ type: 'QUICK_REPLY' }), field: 'components[1].buttons[0].text' }
]

describe('the template validator (CONTRACT.md 20): every rule, kept and broken', () => {
  it('the example template is valid', () => {
    expect(templateProblems(orderUpdate('order_update'))).toEqual([])
  })

  for (const { rule, valid, invalid, field } of RULES) {
    it(rule, () => {
      const kept = structuredClone(orderUpdate('order_update'))
      valid(kept)
      expect(templateProblems(kept)).toEqual([])
      const broken = structuredClone(orderUpdate('order_update'))
      invalid(broken)
      const problems = templateProblems(broken)
      expect(problems.map(problem => problem.field)).toContain(field)
      expect(problems.every(problem => problem.error.length > 10)).toBe(true)
    })
  }

  it('lists every problem of a template, not only the first', () => {
    const problems = templateProblems({ name: 'Bad Name', language: 'en_US', category: 'NOPE', components: [body('{{2}}')] })
    expect(problems.map(problem => problem.field)).toEqual(['name', 'category', 'components[0].text'])
  })

  it('normalises the case of enums and the order of keys, not texts', () => {
    const upper = [{ type: 'BODY', text: 'Hi' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Yes' }] }]
    const lower = [{ text: 'Hi', type: 'body' }, { buttons: [{ text: 'Yes', type: 'quick_reply' }], type: 'buttons' }]
    expect(normalComponents(lower)).toBe(normalComponents(upper))
    expect(normalComponents([{ type: 'BODY', text: 'hi' }])).not.toBe(normalComponents(upper.slice(0, 1)))
  })

  it('edit limits: one a day, ten in 30 days', () => {
    const now = new Date('2026-12-01T12:00:00Z')
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3600_000)
    expect(nextEditAt([], now)).toBeNull()
    expect(nextEditAt([hoursAgo(25)], now)).toBeNull()
    expect(nextEditAt([hoursAgo(2)], now)).toEqual(new Date(now.getTime() + 22 * 3600_000))
    const ten = Array.from({ length: 10 }, (_, day) => hoursAgo(24 * (day + 2)))
    expect(nextEditAt(ten, now)).toEqual(new Date(ten[9].getTime() + 30 * 24 * 3600_000))
    expect(nextEditAt(ten.slice(0, 9), now)).toBeNull()
  })
})
