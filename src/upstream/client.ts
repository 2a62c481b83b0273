import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'
import got, { RequestError, TimeoutError, type Got } from 'got'
import { answerOf, parseJson, rejection } from './answer.js'
import { UpstreamError } from './errors.js'
import { createMediaCalls } from './media.js'
import { acceptedMessage } from './message-id.js'
import { createSendTransport } from './send-transport.js'
import type { SendResult, UpstreamPhoneNumber, UpstreamTemplate, WebhookRegistration } from './types.js'

export interface UpstreamClientOptions {
  /** GRAPH_API_URL, version included */
  baseUrl: string
  timeoutMs: number
  /** keep-alive connections for message sends (UPSTREAM_CONNECTIONS) */
  sendConnections?: number
}

const PHONE_NUMBER_FIELDS = 'id,display_phone_number,verified_name,quality_rating,throughput,whatsapp_business_manager_messaging_limit'
const TEMPLATE_FIELDS = 'id,name,language,status,category,components,parameter_format,rejected_reason'
// A runaway paging loop would spend the WABA's hourly management quota; 6,000 templates is the upstream's cap.
const MAX_TEMPLATE_PAGES = 60

/**
 * The Graph API calls of CONTRACT.md section 5, each ending in a value or a typed UpstreamError.
 * Message sends go through undici (send-transport.ts); the rare management calls through got.
 */
export function createUpstreamClient (options: UpstreamClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const transport = createSendTransport({ timeoutMs: options.timeoutMs, connections: options.sendConnections ?? 512 })
  const media = createMediaCalls({ baseUrl, timeoutMs: options.timeoutMs })
  const http = got.extend({
    agent: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    retry: { limit: 0 }, // retries belong to the dispatcher, which knows what is safe to repeat
    timeout: { request: options.timeoutMs },
    throwHttpErrors: false,
    responseType: 'text'
  })

  async function call (method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body?: unknown): Promise<unknown> {
    const response = await request(http, method, url, token, body)
    return answerOf(response.statusCode, response.body, response.headers['retry-after'])
  }

  const at = (path: string) => `${baseUrl}/${path}`

  return {
    /** `message` is the upstream body, as an object or already serialised (the log record keeps it as text). */
    async sendMessage (phoneNumberId: string, token: string, message: Record<string, unknown> | string): Promise<SendResult> {
      const url = new URL(at(`${encodeURIComponent(phoneNumberId)}/messages`))
      const raw = await transport.post(url, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, typeof message === 'string' ? message : JSON.stringify(message))
      if (raw.statusCode >= 200 && raw.statusCode < 300) return acceptedMessage(raw.body)
      throw rejection(raw.statusCode, parseJson(raw.body), raw.retryAfter)
    },

    /** A read receipt, with the typing indicator when asked (upstream-facts.md 8.6): `{success: true}`. */
    async markRead (phoneNumberId: string, token: string, wamid: string, typing: boolean): Promise<void> {
      const url = new URL(at(`${encodeURIComponent(phoneNumberId)}/messages`))
      const body = { messaging_product: 'whatsapp', status: 'read', message_id: wamid, ...(typing && { typing_indicator: { type: 'text' } }) }
      const raw = await transport.post(url, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify(body))
      if (raw.statusCode < 200 || raw.statusCode >= 300) throw rejection(raw.statusCode, parseJson(raw.body), raw.retryAfter)
    },

    async listPhoneNumbers (wabaId: string, token: string): Promise<UpstreamPhoneNumber[]> {
      const answer = await call('GET', at(`${encodeURIComponent(wabaId)}/phone_numbers?fields=${PHONE_NUMBER_FIELDS}`), token) as { data?: UpstreamPhoneNumber[] }
      return answer.data ?? []
    },

    async getPhoneNumber (phoneNumberId: string, token: string): Promise<UpstreamPhoneNumber> {
      return await call('GET', at(`${encodeURIComponent(phoneNumberId)}?fields=${PHONE_NUMBER_FIELDS}`), token) as UpstreamPhoneNumber
    },

    /** Every page, following paging.next; the token goes only to the upstream's own origin. */
    async listTemplates (wabaId: string, token: string): Promise<UpstreamTemplate[]> {
      const templates: UpstreamTemplate[] = []
      let next: string | undefined = at(`${encodeURIComponent(wabaId)}/message_templates?fields=${TEMPLATE_FIELDS}&limit=100`)
      for (let page = 0; next && page < MAX_TEMPLATE_PAGES; page++) {
        if (new URL(next).origin !== new URL(baseUrl).origin) throw new UpstreamError('rejected', `Refusing to follow paging.next to another host: ${new URL(next).origin}`)
        const answer = await call('GET', next, token) as { data?: UpstreamTemplate[], paging?: { next?: string } }
        templates.push(...(answer.data ?? []))
        next = answer.paging?.next
      }
      return templates
    },

    async subscribeApp (wabaId: string, token: string, registration: WebhookRegistration): Promise<void> {
      await call('POST', at(`${encodeURIComponent(wabaId)}/subscribed_apps`), token, {
        override_callback_uri: registration.overrideCallbackUri,
        verify_token: registration.verifyToken
      })
    },

    /** POST /{waba-id}/message_templates (upstream-facts.md 8.1): `{id, status, category}` */
    async createTemplate (wabaId: string, token: string, template: Record<string, unknown>): Promise<{ id: string, status: string, category?: string }> {
      return await call('POST', at(`${encodeURIComponent(wabaId)}/message_templates`), token, template) as { id: string, status: string, category?: string }
    },

    /** POST /{template-id} (8.3): components replaced as a whole, and the category of one not approved */
    async editTemplate (templateId: string, token: string, change: Record<string, unknown>): Promise<void> {
      await call('POST', at(encodeURIComponent(templateId)), token, change)
    },

    /** DELETE /{waba-id}/message_templates (8.4): one language by its hsm_id, or every language of the name */
    async deleteTemplate (wabaId: string, token: string, name: string, hsmId?: string): Promise<void> {
      const query = new URLSearchParams({ name, ...(hsmId !== undefined && { hsm_id: hsmId }) })
      await call('DELETE', at(`${encodeURIComponent(wabaId)}/message_templates?${query}`), token)
    },

    /** GET /{template-id}?fields=status,category,rejected_reason (8.2) */
    async templateStatus (templateId: string, token: string): Promise<{ status: string, category?: string, rejected_reason?: string }> {
      return await call('GET', at(`${encodeURIComponent(templateId)}?fields=status,category,rejected_reason`), token) as { status: string, category?: string, rejected_reason?: string }
    },

    /** upload, media node, download, delete (CONTRACT.md 5, 13) */
    media,

    async close (): Promise<void> {
      await Promise.all([transport.close(), media.close()])
    }
  }
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>

async function request (http: Got, method: 'GET' | 'POST' | 'DELETE', url: string, token: string, body: unknown) {
  try {
    return await http(url, { method, headers: { authorization: `Bearer ${token}` }, ...(body !== undefined && { json: body }) })
  } catch (error) {
    throw classifyNetworkError(error)
  }
}

function classifyNetworkError (error: unknown): UpstreamError {
  if (!(error instanceof RequestError)) return new UpstreamError('lost', `Upstream call failed: ${(error as Error)?.message ?? error}`)
  // After the request left, silence or a dropped connection tells nothing about whether the upstream acted.
  const sent = error.timings?.upload !== undefined
  if (error instanceof TimeoutError) {
    return sent ? new UpstreamError('timeout', 'The upstream did not answer in time; the outcome is unknown') : new UpstreamError('unreachable', `Could not reach the upstream (${error.event} timeout)`)
  }
  if (!sent) return new UpstreamError('unreachable', `Could not reach the upstream (${error.code})`)
  return new UpstreamError('lost', `The connection to the upstream broke after the request was sent (${error.code}); the outcome is unknown`)
}
