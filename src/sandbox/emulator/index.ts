export { startEmulator } from './emulator.js'
export { defaultAccount } from './default-account.js'
export { MAGIC_RECIPIENTS, type MagicRecipient } from './magic.js'
export { ERROR_CODES } from './error-codes.js'
export { signBody } from './webhook-sender.js'
export type {
  DeliveryStatus, EmulatedNumber, EmulatedTemplate, Emulator, EmulatorOptions, EmulatorStats, FaultScope, Faults,
  InboundMedia, InboundMessage, MediaInfo, RecordedRequest, SendWebhookOptions, SentMessage, StatusDelays, StatusName, StatusOptions,
  TemplateStatusUpdate, WabaAccount, WebhookDelivery
} from './types.js'
