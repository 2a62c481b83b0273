/** The upstream's shapes as far as the gateway reads them (upstream-facts.md sections 1.8 and 5). */
export interface UpstreamPhoneNumber {
  id: string
  display_phone_number: string
  verified_name?: string
  quality_rating?: string
  throughput?: { level?: string }
  whatsapp_business_manager_messaging_limit?: string
  messaging_limit_tier?: string
}

export interface UpstreamTemplate {
  id?: string
  name: string
  language: string
  status: string
  category?: string
  components?: unknown[]
  parameter_format?: string
  rejected_reason?: string
}

export interface SendResult {
  wamid: string
  messageStatus?: string
}

export interface WebhookRegistration {
  overrideCallbackUri: string
  verifyToken: string
}
