import { invalidRequest } from '../errors.js'
import { PHONE } from '../messages/schemas.js'
import type { Recipient } from '../store/campaigns.js'
import type { CampaignTemplate } from './template.js'

/** The most recipients (rows) one campaign request may carry, rejected and repeated ones included. */
export const MAX_RECIPIENTS = 100_000
/** Rejected rows reported, at most. */
export const MAX_REPORTED = 100

export interface Rejection { row: number, field: string, error: string }

const PHONE_PATTERN = new RegExp(PHONE)
const MAX_VARIABLE = 1024

export class TooManyRecipients extends Error {
  constructor () { super(`recipients: at most ${MAX_RECIPIENTS} per campaign`) }
}

/**
 * The recipients of one request, row by row (row 1 is the first recipient): invalid rows are
 * counted and the first 100 reported, a repeated recipient is kept once (its first row), the rest
 * kept compactly for the insert.
 */
export class RecipientIntake {
  readonly accepted: Recipient[] = []
  readonly rejections: Rejection[] = []
  rejected = 0
  rows = 0
  readonly #seen = new Set<string>()

  /** `source`: where the rows come from, to name them in an error: `recipients` (JSON) or `file` (CSV). */
  constructor (private readonly template: CampaignTemplate, private readonly source: 'recipients' | 'file' = 'recipients') {}

  /** One row as the caller found it: `variables` positional (array) or by key (object); strings only. */
  add (row: { to?: unknown, variables?: unknown, client_reference?: unknown }): void {
    this.rows += 1
    if (this.rows > MAX_RECIPIENTS) throw new TooManyRecipients()
    this.#refuseNul(row)
    const problem = this.#problem(row)
    if (problem) {
      this.#reject(problem)
      return
    }
    const to = (row.to as string).replace(/^\+/, '')
    if (this.#seen.has(to)) return
    this.#seen.add(to)
    this.accepted.push({ to, variables: normalised(row.variables), clientReference: (row.client_reference as string | undefined) ?? null })
  }

  /** A CSV row whose cell in `column` is not UTF-8: rejected with its row, as an invalid row is. */
  addNotUtf8 (column: string): void {
    this.rows += 1
    if (this.rows > MAX_RECIPIENTS) throw new TooManyRecipients()
    this.#reject({ field: column, error: `column ${column} is not valid UTF-8 (the file must be UTF-8)` })
  }

  #reject (problem: Omit<Rejection, 'row'>): void {
    this.rejected += 1
    if (this.rejections.length < MAX_REPORTED) this.rejections.push({ row: this.rows, ...problem })
  }

  /** PostgreSQL's text and jsonb cannot hold a NUL: the whole request is a 422 naming where (not a 500 at the insert). */
  #refuseNul (row: { to?: unknown, variables?: unknown, client_reference?: unknown }): void {
    if (typeof row !== 'object' || row === null) return
    const values: Array<[string, unknown]> = [['to', row.to], ['client_reference', row.client_reference]]
    if (typeof row.variables === 'object' && row.variables !== null) {
      for (const [key, value] of Object.entries(row.variables)) values.push([this.source === 'file' ? `column ${key}` : `variables.${key}`, value])
    }
    const found = values.find(([, value]) => typeof value === 'string' && value.includes('\u0000'))
    if (!found) return
    const [where] = found
    if (this.source === 'file') throw invalidRequest(`file: row ${this.rows}, ${where.startsWith('column') ? where : `column ${where}`}, contains a NUL byte; nothing was created`, 'file')
    throw invalidRequest(`recipients[${this.rows - 1}].${where} contains a NUL byte; nothing was created`, `recipients[${this.rows - 1}].${where}`)
  }

  #problem (row: { to?: unknown, variables?: unknown, client_reference?: unknown }): Omit<Rejection, 'row'> | undefined {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) return { field: 'to', error: 'a recipient is an object with to' }
    if (row.to === undefined || row.to === null || row.to === '') return { field: 'to', error: 'to is required' }
    if (typeof row.to !== 'string' || !PHONE_PATTERN.test(row.to)) return { field: 'to', error: 'to must be an international number: optional +, then 7–15 digits' }
    if (row.client_reference !== undefined && row.client_reference !== null &&
      (typeof row.client_reference !== 'string' || row.client_reference.length < 1 || row.client_reference.length > 256)) {
      return { field: 'client_reference', error: 'client_reference must be a string of 1–256 characters' }
    }
    return variablesProblem(row.variables, this.template.body)
  }
}

function variablesProblem (variables: unknown, body: CampaignTemplate['body']): Omit<Rejection, 'row'> | undefined {
  const field = 'variables'
  if (variables !== undefined && variables !== null && typeof variables !== 'object') return { field, error: 'variables must be an array or an object of strings' }
  const values = variables == null ? [] : Array.isArray(variables) ? variables : Object.values(variables)
  if (values.some(value => typeof value !== 'string' || value.trim() === '' || value.length > MAX_VARIABLE)) {
    return { field, error: `each variable must be a non-empty string of at most ${MAX_VARIABLE} characters` }
  }
  if (body === null) return undefined
  if ('named' in body) {
    if (Array.isArray(variables)) return { field, error: `the template's parameters are named: give variables as an object with ${body.named.join(', ')}` }
    const given = Object.keys((variables ?? {}) as object)
    const missing = body.named.find(name => !given.includes(name))
    if (missing !== undefined) return { field, error: `variable ${missing} is missing (the template expects ${body.named.join(', ')})` }
    const unknown = given.find(name => !body.named.includes(name))
    if (unknown !== undefined) return { field, error: `variable ${unknown} is not a parameter of the template (it expects ${body.named.join(', ')})` }
    return undefined
  }
  if (variables != null && !Array.isArray(variables)) {
    const keys = Object.keys(variables)
    const expected = Array.from({ length: body.count }, (_, index) => String(index + 1))
    const wrong = keys.find(key => !expected.includes(key)) ?? expected.find(key => !keys.includes(key))
    if (wrong !== undefined) return { field, error: `the template expects ${body.count} parameter(s), keyed 1 to ${body.count}; ${keys.includes(wrong) ? `${wrong} is not one` : `${wrong} is missing`}` }
    return undefined
  }
  if (values.length !== body.count) return { field, error: `the template expects ${body.count} parameter(s), got ${values.length}` }
  return undefined
}

/** Positional variables as an array in order; named ones as given. */
function normalised (variables: unknown): Recipient['variables'] {
  if (variables == null) return null
  if (Array.isArray(variables)) return variables.length === 0 ? null : variables as string[]
  const entries = Object.entries(variables as Record<string, string>)
  if (entries.length === 0) return null
  if (entries.every(([key]) => /^\d+$/.test(key))) return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, value]) => value)
  return Object.fromEntries(entries)
}
