import type { Faults, StatusOptions } from './types.js'

export interface MagicRecipient { description: string, faults?: Faults, status?: StatusOptions }

/** Recipients that fail in a known way without any configuration (explicit settings for them win). */
export const MAGIC_RECIPIENTS: Readonly<Record<string, MagicRecipient>> = {
  15550000001: { description: 'always 131026 Message undeliverable (HTTP 400, permanent)', faults: { permanent: { code: 131026 } } },
  15550000002: { description: 'always 131000 Something went wrong (HTTP 500, a transient code)', faults: { permanent: { code: 131000 } } },
  15550000003: { description: 'accepted, then status webhooks sent → failed with 131047 Re-engagement message', status: { failWith: { code: 131047 } } },
  15550000004: { description: 'hangs: the request is read and never answered', faults: { hang: true } },
  15550000005: { description: '130429 Rate limit hit once, then accepted', faults: { transient: { code: 130429, times: 1 } } },
  15550000006: { description: 'connection reset after the request is read, no answer', faults: { reset: true } },
  15550000007: { description: '131016 Service unavailable (HTTP 503, Retry-After: 1) twice, then accepted', faults: { transient: { code: 131016, times: 2 }, retryAfter: 1 } },
  15550000008: { description: 'accepted after 2 s of latency', faults: { latencyMs: 2000 } },
  // the audience rules (CONTRACT.md 14): each makes the gateway remember something
  15550000009: { description: '131050 the recipient stopped marketing messages (HTTP 400): the gateway suppresses them', faults: { permanent: { code: 131050 } } },
  15550000010: { description: 'accepted, then failed with 131049 (per-user marketing cap): the gateway cools them down for 24 h', status: { failWith: { code: 131049 } } },
  15550000011: { description: '132015 template paused (HTTP 400): the gateway marks the template PAUSED', faults: { permanent: { code: 132015 } } }
}
