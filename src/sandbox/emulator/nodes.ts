import type { StoredTemplate, WabaState } from './accounts.js'
import type { Json } from './json.js'
import type { EmulatedNumber } from './types.js'

export const NUMBER_LIST_FIELDS = ['verified_name', 'code_verification_status', 'display_phone_number', 'quality_rating', 'platform_type', 'throughput']
export const NUMBER_NODE_FIELDS = ['display_phone_number', 'verified_name', 'quality_rating', 'throughput',
  'whatsapp_business_manager_messaging_limit', 'status', 'code_verification_status', 'platform_type']
export const TEMPLATE_FIELDS = ['name', 'components', 'language', 'status', 'category']
export const WABA_FIELDS = ['name', 'currency', 'timezone_id', 'message_template_namespace']

export function numberNode (number: EmulatedNumber, waba: WabaState): Json {
  return {
    verified_name: number.verifiedName,
    code_verification_status: 'VERIFIED',
    display_phone_number: number.displayPhoneNumber,
    quality_rating: number.qualityRating ?? 'GREEN',
    platform_type: 'CLOUD_API',
    throughput: { level: number.throughputLevel ?? 'STANDARD' },
    whatsapp_business_manager_messaging_limit: number.messagingLimitTier ?? 'TIER_2K',
    // deprecated upstream: present as a field, never with a value
    messaging_limit_tier: undefined,
    status: 'CONNECTED',
    name_status: 'APPROVED',
    account_mode: 'LIVE',
    is_official_business_account: false,
    last_onboarded_time: '2026-01-15T10:00:00+0000',
    webhook_configuration: waba.callback ? { whatsapp_business_account: waba.callback } : {},
    id: number.id
  }
}

export function templateNode (template: StoredTemplate): Json {
  return {
    name: template.name,
    parameter_format: template.parameterFormat ?? 'POSITIONAL',
    components: template.components ?? [],
    language: template.language,
    status: template.status,
    category: template.category,
    rejected_reason: template.status === 'REJECTED' ? template.rejectedReason ?? 'INVALID_FORMAT' : 'NONE',
    quality_score: { score: 'UNKNOWN' },
    id: template.id
  }
}

export function wabaNode (waba: WabaState): Json {
  return {
    name: waba.account.name ?? `WABA ${waba.account.wabaId}`,
    currency: 'USD',
    timezone_id: '1',
    message_template_namespace: `emulator_${waba.account.wabaId}`,
    account_review_status: 'APPROVED',
    id: waba.account.wabaId
  }
}
