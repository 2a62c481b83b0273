import type { FastifyRequest } from 'fastify'
import type { MultipartFile } from '@fastify/multipart'
import { requireNumber } from '../access/scopes.js'
import { sendingNumber } from '../connections/sending-number.js'
import { AppError, invalidRequest, payloadTooLarge } from '../errors.js'
import type { NewCampaign, Recipient } from '../store/campaigns.js'
import { newId } from '../store/ids.js'
import type { Template } from '../store/templates.js'
import { readCsv, type CsvRow } from './csv.js'
import { MAX_RECIPIENTS, RecipientIntake, TooManyRecipients } from './recipients.js'
import { checkTemplate, type CampaignTemplate } from './template.js'

/** A campaign ready to store, with the recipients to send to. */
export interface CampaignDraft { campaign: NewCampaign, recipients: Recipient[] }

export interface CreateDeps {
  templatesNamed (workspaceId: string, name: string): Promise<Template[]>
  /**
   * The recipients that must be skipped (opted out of a MARKETING template: CONTRACT.md 14). The
   * suppression list is the audience rules' (plugins/campaigns.ts passes their check when present).
   */
  optedOut (workspaceId: string, category: string | null, recipients: string[]): Promise<Set<string>>
  bodyLimitBytes: number
}

const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/
const FIELDS = ['name', 'template', 'language', 'phone_number_id', 'send_at'] as const
type Fields = Partial<Record<typeof FIELDS[number], unknown>>

/** POST /api/campaigns.php's body, JSON or multipart with a CSV `file`: checked, the template once, the rows one by one. */
export async function campaignFromRequest (deps: CreateDeps, request: FastifyRequest): Promise<CampaignDraft> {
  if (request.isMultipart()) return await fromMultipart(deps, request)
  const body = request.body
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be a JSON object with name, template and recipients', 'recipients')
  const fields = body as Fields & { recipients?: unknown }
  const header = await checkFields(deps, request, fields)
  if (!Array.isArray(fields.recipients) || fields.recipients.length === 0) throw invalidRequest('recipients is required: a non-empty array of {to, variables?, client_reference?}', 'recipients')
  if (fields.recipients.length > MAX_RECIPIENTS) throw tooMany()
  const intake = new RecipientIntake(header.template)
  for (const row of fields.recipients) intake.add(row)
  return await draft(deps, request, header, intake)
}

interface Header { name: string, template: CampaignTemplate, phoneNumberId: string, sendAt: Date }

async function checkFields (deps: CreateDeps, request: FastifyRequest, fields: Fields): Promise<Header> {
  const { numbers } = request.activeConnection
  if (fields.phone_number_id !== undefined && typeof fields.phone_number_id !== 'string') throw invalidRequest('phone_number_id must be a string', 'phone_number_id')
  const wanted = fields.phone_number_id as string | undefined
  requireNumber(request.apiKey, wanted ?? numbers[0].phoneNumberId)
  if (typeof fields.name !== 'string' || fields.name.trim() === '' || fields.name.length > 200) throw invalidRequest('name is required: 1–200 characters', 'name')
  if (typeof fields.template !== 'string' || !TEMPLATE_NAME.test(fields.template)) throw invalidRequest('template is required: the name of an approved template (lowercase letters, digits, _)', 'template')
  if (fields.language !== undefined && (typeof fields.language !== 'string' || !LANGUAGE.test(fields.language))) throw invalidRequest('language must be a language code such as en or en_US', 'language')
  let sendAt = new Date()
  if (fields.send_at !== undefined && fields.send_at !== null && fields.send_at !== '') {
    const given = typeof fields.send_at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(fields.send_at) ? new Date(fields.send_at.replace(' ', '+')) : new Date(Number.NaN)
    if (Number.isNaN(given.getTime())) throw invalidRequest('send_at must be an ISO 8601 date and time, such as 2030-01-01T09:00:00Z', 'send_at')
    if (given > sendAt) sendAt = given
  }
  const number = sendingNumber(numbers, wanted)
  const synced = await deps.templatesNamed(request.apiKey.workspaceId, fields.template)
  const template = checkTemplate(fields.template, fields.language as string | undefined, synced)
  return { name: fields.name.trim(), template, phoneNumberId: number.phoneNumberId, sendAt }
}

async function draft (deps: CreateDeps, request: FastifyRequest, header: Header, intake: RecipientIntake): Promise<CampaignDraft> {
  const { workspaceId } = request.apiKey
  const opted = intake.accepted.length === 0 ? new Set<string>() : await deps.optedOut(workspaceId, header.template.category, intake.accepted.map(recipient => recipient.to))
  const recipients = opted.size === 0 ? intake.accepted : intake.accepted.filter(recipient => !opted.has(recipient.to))
  return {
    campaign: {
      id: newId('cmp'),
      workspaceId,
      apiKeyId: request.apiKey.id,
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

/**
 * The form's fields and its CSV `file`. The fields are read as they come; the file's rows are
 * checked as they stream when the fields before it settled the template (the usual order), and
 * kept raw until the end otherwise.
 */
async function fromMultipart (deps: CreateDeps, request: FastifyRequest): Promise<CampaignDraft> {
  const fields: Fields = {}
  let header: Header | undefined
  let intake: RecipientIntake | undefined
  let pending: CsvRow[] | undefined
  let columns: string[] | undefined
  let files = 0
  try {
    for await (const part of request.parts({ limits: { fileSize: deps.bodyLimitBytes, files: 1, fields: 20, fieldSize: 4096, parts: 21 } })) {
      if (part.type === 'field') {
        if ((FIELDS as readonly string[]).includes(part.fieldname)) fields[part.fieldname as keyof Fields] = String(part.value)
        continue
      }
      files += 1
      if (part.fieldname !== 'file') {
        part.file.resume()
        throw invalidRequest(`${part.fieldname} is a file part: send the CSV as the part named file`, part.fieldname)
      }
      if (fields.template !== undefined) {
        header = await checkFields(deps, request, fields)
        intake = new RecipientIntake(header.template)
      } else {
        pending = []
      }
      await readPart(part, found => { columns = found; if (header) checkColumns(found, header.template) }, row => {
        if (intake) intake.add(row)
        else if (pending!.push(row) > MAX_RECIPIENTS) throw new TooManyRecipients()
      })
    }
  } catch (error) {
    if (error instanceof TooManyRecipients) throw tooMany()
    if (error instanceof AppError) throw error
    if ((error as { statusCode?: number }).statusCode === 413) throw payloadTooLarge(deps.bodyLimitBytes)
    throw invalidRequest(`The multipart body is malformed: ${(error as Error).message}`)
  }
  if (files === 0) throw invalidRequest('file is required: the recipients as a CSV part named file (or send JSON with recipients)', 'file')
  if (!header) {
    header = await checkFields(deps, request, fields)
    if (columns) checkColumns(columns, header.template)
    intake = new RecipientIntake(header.template)
    try {
      for (const row of pending ?? []) intake.add(row)
    } catch (error) {
      if (error instanceof TooManyRecipients) throw tooMany()
      throw error
    }
  }
  if (intake!.rows === 0) throw invalidRequest('file: the CSV has no recipient rows', 'file')
  return await draft(deps, request, header, intake!)
}

async function readPart (part: MultipartFile, onHeader: (columns: string[]) => void, onRow: (row: CsvRow) => void): Promise<void> {
  await readCsv(part.file, onHeader, onRow)
  if (part.file.truncated) throw payloadTooLarge(0)
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
