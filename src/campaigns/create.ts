import type { FastifyRequest } from 'fastify'
import type { MultipartFile } from '@fastify/multipart'
import { requireNumber } from '../access/scopes.js'
import { sendingNumber } from '../connections/sending-number.js'
import { AppError, invalidRequest, payloadTooLarge } from '../errors.js'
import { unavailableAnswer } from '../faults/answer.js'
import type { NewCampaign, Recipient } from '../store/campaigns.js'
import type { Connection, PhoneNumber } from '../store/connections.js'
import { newId } from '../store/ids.js'
import type { Template } from '../store/templates.js'
import { readCsv, type CsvRow } from './csv.js'
import { MAX_RECIPIENTS, RecipientIntake, TooManyRecipients } from './recipients.js'
import { checkTemplate, type CampaignTemplate } from './template.js'

/** A campaign ready to store, with the recipients to send to. */
export interface CampaignDraft { campaign: NewCampaign, recipients: Recipient[] }

export interface CreateDeps {
  /** section 14's lookup: a name unknown in every language re-syncs the catalog first (plugins/audience.ts) */
  templatesNamed (connection: Connection, name: string): Promise<Template[]>
  /** Which of `recipients` are on the workspace's suppression list (the audience rules') */
  suppressedAmong (workspaceId: string, recipients: string[]): Promise<Set<string>>
  bodyLimitBytes: number
}

/** Who creates the campaign: an API key (its number scope) or a dashboard user (every number of the connection). */
export interface CampaignSender {
  workspaceId: string
  apiKeyId: string | null
  connection: Connection
  numbers: PhoneNumber[]
  /** throws when this sender may not send from the number (403) */
  allow (phoneNumberId: string): void
}

export function keySender (request: FastifyRequest): CampaignSender {
  const { apiKey } = request
  return { workspaceId: apiKey.workspaceId, apiKeyId: apiKey.id, connection: request.activeConnection.connection, numbers: request.activeConnection.numbers, allow: phoneNumberId => { requireNumber(apiKey, phoneNumberId) } }
}

const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/
const FIELDS = ['name', 'template', 'language', 'phone_number_id', 'send_at'] as const
type Fields = Partial<Record<typeof FIELDS[number], unknown>>

/** POST /api/campaigns.php's body, JSON or multipart with a CSV `file`: checked, the template once, the rows one by one. */
export async function campaignFromRequest (deps: CreateDeps, request: FastifyRequest): Promise<CampaignDraft> {
  const sender = keySender(request)
  if (request.isMultipart()) return await readCampaignUpload(deps, request, sender)
  const body = request.body
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be a JSON object with name, template and recipients', 'recipients')
  const fields = body as Fields & { recipients?: unknown }
  const header = await checkFields(deps, sender, fields)
  if (!Array.isArray(fields.recipients) || fields.recipients.length === 0) throw invalidRequest('recipients is required: a non-empty array of {to, variables?, client_reference?}', 'recipients')
  if (fields.recipients.length > MAX_RECIPIENTS) throw tooMany()
  const intake = new RecipientIntake(header.template, 'recipients')
  for (const row of fields.recipients) intake.add(row)
  return await draft(deps, sender, header, intake)
}

interface Header { name: string, template: CampaignTemplate, phoneNumberId: string, sendAt: Date }

async function checkFields (deps: CreateDeps, sender: CampaignSender, fields: Fields): Promise<Header> {
  const { numbers } = sender
  const nul = FIELDS.find(field => typeof fields[field] === 'string' && (fields[field] as string).includes('\u0000'))
  if (nul !== undefined) throw invalidRequest(`${nul} contains a NUL byte`, nul)
  if (fields.phone_number_id !== undefined && typeof fields.phone_number_id !== 'string') throw invalidRequest('phone_number_id must be a string', 'phone_number_id')
  const wanted = fields.phone_number_id === '' ? undefined : fields.phone_number_id as string | undefined
  sender.allow(wanted ?? numbers[0].phoneNumberId)
  if (typeof fields.name !== 'string' || fields.name.trim() === '' || fields.name.length > 200) throw invalidRequest('name is required: 1–200 characters', 'name')
  if (typeof fields.template !== 'string' || !TEMPLATE_NAME.test(fields.template)) throw invalidRequest('template is required: the name of an approved template (lowercase letters, digits, _)', 'template')
  const language = fields.language === '' ? undefined : fields.language
  if (language !== undefined && (typeof language !== 'string' || !LANGUAGE.test(language))) throw invalidRequest('language must be a language code such as en or en_US', 'language')
  let sendAt = new Date()
  if (fields.send_at !== undefined && fields.send_at !== null && fields.send_at !== '') {
    const given = typeof fields.send_at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(fields.send_at) ? new Date(fields.send_at.replace(' ', '+')) : new Date(Number.NaN)
    if (Number.isNaN(given.getTime())) throw invalidRequest('send_at must be an ISO 8601 date and time, such as 2030-01-01T09:00:00Z', 'send_at')
    if (given > sendAt) sendAt = given
  }
  const number = sendingNumber(numbers, wanted)
  const synced = await deps.templatesNamed(sender.connection, fields.template)
  const template = checkTemplate(fields.template, language as string | undefined, synced)
  return { name: fields.name.trim(), template, phoneNumberId: number.phoneNumberId, sendAt }
}

async function draft (deps: CreateDeps, sender: CampaignSender, header: Header, intake: RecipientIntake): Promise<CampaignDraft> {
  const { workspaceId } = sender
  // opted-out recipients of a MARKETING template are skipped and counted (CONTRACT.md 14, 15)
  const marketing = header.template.category?.toUpperCase() === 'MARKETING'
  const opted = marketing && intake.accepted.length > 0 ? await deps.suppressedAmong(workspaceId, intake.accepted.map(recipient => recipient.to)) : new Set<string>()
  const recipients = opted.size === 0 ? intake.accepted : intake.accepted.filter(recipient => !opted.has(recipient.to))
  return {
    campaign: {
      id: newId('cmp'),
      workspaceId,
      apiKeyId: sender.apiKeyId,
      name: header.name,
      template: header.template.name,
      language: header.template.language,
      category: header.template.category,
      phoneNumberId: header.phoneNumberId,
      sendAt: header.sendAt,
      rejected: intake.rejected,
      skipped: intake.accepted.length - recipients.length,
      rejections: intake.rejections
    },
    recipients
  }
}

const tooMany = () => invalidRequest(`recipients: at most ${MAX_RECIPIENTS} per campaign (every row counts, rejected and repeated ones too); nothing was created`, 'recipients')
const tooLarge = (limit: number) => payloadTooLarge(limit, 'CAMPAIGN_BODY_LIMIT_BYTES')

export interface UploadOptions {
  /**
   * Called with every field read so far when the file part starts, before any of it is read (the
   * dashboard checks its form's CSRF token here: a multipart body is not parsed before the route).
   */
  beforeFile? (fields: Readonly<Record<string, string>>): void
}

/**
 * The one reader of a campaign's multipart form (the API's POST and the dashboard's upload): its
 * fields and its CSV `file`. The fields are read as they come; the file's rows are checked as they
 * stream when the fields before it settled the template (the usual order), and kept raw until the
 * end otherwise.
 */
export async function readCampaignUpload (deps: CreateDeps, request: FastifyRequest, sender: CampaignSender, options: UploadOptions = {}): Promise<CampaignDraft> {
  const fields: Fields = {}
  const seen: Record<string, string> = {}
  let header: Header | undefined
  let intake: RecipientIntake | undefined
  let pending: CsvRow[] | undefined
  let columns: string[] | undefined
  let files = 0
  try {
    for await (const part of request.parts({ limits: { fileSize: deps.bodyLimitBytes, files: 1, fields: 20, fieldSize: 4096, parts: 21 } })) {
      if (part.type === 'field') {
        const value = String(part.value)
        // PostgreSQL's text cannot hold a NUL: refused here, named, rather than failing at the insert
        if (value.includes('\u0000')) throw invalidRequest(`${part.fieldname} contains a NUL byte`, part.fieldname)
        seen[part.fieldname] = value
        if ((FIELDS as readonly string[]).includes(part.fieldname)) fields[part.fieldname as keyof Fields] = value
        continue
      }
      files += 1
      if (part.fieldname !== 'file') {
        part.file.resume()
        throw invalidRequest(`${part.fieldname} is a file part: send the CSV as the part named file`, part.fieldname)
      }
      try {
        options.beforeFile?.(seen)
      } catch (error) {
        part.file.resume()
        throw error
      }
      if (fields.template !== undefined) {
        header = await checkFields(deps, sender, fields)
        intake = new RecipientIntake(header.template, 'file')
      } else {
        pending = []
      }
      await readPart(part, deps.bodyLimitBytes, found => { columns = found; if (header) checkColumns(found, header.template) }, row => {
        if (intake) addRow(intake, row)
        else if (pending!.push(row) > MAX_RECIPIENTS) throw new TooManyRecipients()
      })
    }
  } catch (error) {
    if (error instanceof TooManyRecipients) throw tooMany()
    if (error instanceof AppError) throw error
    if ((error as { statusCode?: number }).statusCode === 413) throw tooLarge(deps.bodyLimitBytes)
    // only the multipart parser's own complaints are the client's: anything else (the database
    // going away while the template is read) keeps its meaning for the error handler (503)
    const unavailable = unavailableAnswer(error as Error)
    if (unavailable) throw unavailable
    if (isMultipartError(error)) throw invalidRequest(`The multipart body is malformed: ${(error as Error).message}`)
    throw error
  }
  if (files === 0) throw invalidRequest('file is required: the recipients as a CSV part named file (or send JSON with recipients)', 'file')
  if (!header) {
    header = await checkFields(deps, sender, fields)
    if (columns) checkColumns(columns, header.template)
    intake = new RecipientIntake(header.template, 'file')
    try {
      for (const row of pending ?? []) addRow(intake, row)
    } catch (error) {
      if (error instanceof TooManyRecipients) throw tooMany()
      throw error
    }
  }
  if (intake!.rows === 0) throw invalidRequest('file: the CSV has no recipient rows', 'file')
  return await draft(deps, sender, header, intake!)
}

function addRow (intake: RecipientIntake, row: CsvRow): void {
  if (row.notUtf8 === undefined) intake.add(row)
  else intake.addNotUtf8(row.notUtf8)
}

/** busboy's and @fastify/multipart's errors about the body itself (FST_… codes, or busboy's plain Errors). */
function isMultipartError (error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') return code.startsWith('FST_')
  return error instanceof Error
}

async function readPart (part: MultipartFile, limit: number, onHeader: (columns: string[]) => void, onRow: (row: CsvRow) => void): Promise<void> {
  await readCsv(part.file, onHeader, onRow)
  if (part.file.truncated) throw tooLarge(limit)
}

/** A column that is neither to, client_reference nor a variable of the template is a mistake worth a 422 on `file`. */
function checkColumns (columns: string[], template: CampaignTemplate): void {
  const body = template.body
  if (body === null) return
  const variables = 'named' in body ? body.named : Array.from({ length: body.count }, (_, index) => String(index + 1))
  const unknown = columns.find(column => column !== 'to' && column !== 'client_reference' && !variables.includes(column))
  if (unknown !== undefined) {
    throw invalidRequest(`file: column ${unknown} is not a variable of template ${template.name} (columns: to, ${variables.length > 0 ? `${variables.join(', ')}, ` : ''}client_reference)`, 'file')
  }
}
