import type { LightMyRequestResponse } from 'fastify'
import { randomBytes } from 'node:crypto'
import type { TestGateway } from '../helpers/gateway.js'

export const URL = '/api/messages.php'
export const RECIPIENT = '15551234567'

export function form (text: string): { headers: Record<string, string> } & { payload: string } {
  return { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: text }
}

/** A multipart/form-data body with these fields, and optionally one file part. */
export function multipart (fields: [string, string][], file?: { field: string, filename: string, content: string }): { headers: Record<string, string>, payload: Buffer } {
  const boundary = `----outbound${randomBytes(8).toString('hex')}`
  const parts = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
  if (file) parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${file.content}\r\n`)
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: Buffer.from(parts.join('') + `--${boundary}--\r\n`) }
}

/** What the emulator received for the message with this wamid. */
export function received (gateway: TestGateway, wamid: string): Record<string, unknown> {
  const message = gateway.emulator.sentMessages.find(sent => sent.wamid === wamid)
  if (!message) throw new Error(`the emulator received no message ${wamid}`)
  return message.payload
}

/** The newest log record of the workspace. */
export async function latestRecord (gateway: TestGateway, workspaceId: string) {
  const [record] = await gateway.app.messages.list(workspaceId, { limit: 1 })
  return record
}

export function expectEnvelope (response: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  const body = response.json() as Record<string, unknown>
  if (response.statusCode !== status || body.ok !== false || body.code !== code || typeof body.error !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${response.statusCode} ${response.body}`)
  }
  return body
}
