import { AccountStore } from './accounts.js'
import { defaultAccount } from './default-account.js'
import { FaultStore } from './faults.js'
import { SendLimits } from './limits.js'
import { MediaStore } from './media-store.js'
import { StatusOptionStore } from './status-options.js'
import type { EmulatorOptions, EmulatorStats, ReadReceipt, RecordedRequest, SentMessage, WebhookDelivery } from './types.js'
import { WebhookSender } from './webhook-sender.js'

/** Everything the routes and the programmatic API share. */
export interface EmulatorContext {
  basePath: string
  appSecret: string
  accounts: AccountStore
  faults: FaultStore
  limits: SendLimits
  media: MediaStore
  statusOptions: StatusOptionStore
  webhooks: WebhookSender
  requests: RecordedRequest[]
  sentMessages: SentMessage[]
  /** read receipts and typing indicators accepted (upstream-facts.md 8.6) */
  readReceipts: ReadReceipt[]
  /** the wamids of the messages customers sent, by the number they were sent to: what a read receipt may name */
  inboundWamids: Map<string, string>
  stats: EmulatorStats
  webhookDeliveries: WebhookDelivery[]
  /** templates under review: each ends APPROVED (or REJECTED) after templateReviewMs */
  reviews: { delayMs: number, timers: Set<NodeJS.Timeout> }
}

export function createContext (options: EmulatorOptions): EmulatorContext {
  const appSecret = options.appSecret ?? 'emulator-app-secret'
  const webhookDeliveries: WebhookDelivery[] = []
  return {
    basePath: normalizeBasePath(options.basePath ?? '/v25.0'),
    appSecret,
    accounts: new AccountStore(options.accounts ?? [defaultAccount()]),
    faults: new FaultStore(),
    limits: new SendLimits({
      throughputMps: options.throughputMps,
      pairRateBurst: options.pairRateBurst ?? 45,
      pairRateIntervalMs: options.pairRateIntervalMs ?? 6000
    }),
    media: new MediaStore(options.mediaUrlTtlMs ?? 5 * 60_000, options.strictMediaIds ?? false),
    statusOptions: new StatusOptionStore(options.statusDelaysMs ?? { sent: 50, delivered: 100, read: 150 }),
    webhooks: new WebhookSender(appSecret, options.webhookRetries ?? [200, 400, 800], webhookDeliveries),
    requests: [],
    sentMessages: [],
    readReceipts: [],
    inboundWamids: new Map(),
    stats: { accepted: {}, errors: {} },
    webhookDeliveries,
    reviews: { delayMs: options.templateReviewMs ?? 2000, timers: new Set() }
  }
}

function normalizeBasePath (basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '')
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`
}

/** Empties the records in place, so references held by tests stay valid. */
export function clearRecords (context: EmulatorContext): void {
  context.requests.length = 0
  context.sentMessages.length = 0
  context.readReceipts.length = 0
  context.inboundWamids.clear()
  context.webhookDeliveries.length = 0
  for (const key of Object.keys(context.stats.accepted)) delete context.stats.accepted[key]
  for (const key of Object.keys(context.stats.errors)) delete context.stats.errors[Number(key)]
}
