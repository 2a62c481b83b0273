import { join } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { PoolOptions } from '../db/pool.js'

const Int = (minimum: number, fallback: number) => Type.Integer({ minimum, default: fallback })
const HttpUrl = Type.String({ pattern: '^https?://[^\\s/]+[^\\s]*$' })

/** Every environment variable the gateway reads (CONTRACT.md section 1). The key is the variable's name. */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(postgres(ql)?://.+|memory://)$' })),
  /** transaction: behind PgBouncer (or another pooler) in transaction mode, no session state (CONTRACT.md 22) */
  DATABASE_POOL_MODE: Type.Union([Type.Literal('session'), Type.Literal('transaction')], { default: 'session' }),
  /** the most connections to PostgreSQL one process opens, every use included (the CLI: at most 2) */
  DATABASE_POOL_MAX: Int(2, 10),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  GRAPH_API_URL: Type.String({ ...HttpUrl, default: 'https://graph.facebook.com/v25.0' }),
  APP_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  WEBHOOK_VERIFY_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_URL: Type.Optional(HttpUrl),
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' })),
  ENCRYPTION_KEY_PREVIOUS: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map(level => Type.Literal(level)), { default: 'info' }),
  UPSTREAM_TIMEOUT_MS: Int(1, 15000),
  /** keep-alive connections to the upstream for message sends (at least throughput × round trip); more calls wait for one */
  UPSTREAM_CONNECTIONS: Int(1, 512),
  DISPATCH_DEADLINE_MS: Int(1, 30000),
  QUEUE_LIMIT: Int(1, 10000),
  THROUGHPUT_MPS: Type.Optional(Type.Integer({ minimum: 1 })),
  PAIR_RATE_BURST: Int(1, 45),
  PAIR_RATE_INTERVAL_MS: Int(1, 6000),
  MAX_ATTEMPTS: Int(1, 5),
  RATE_LIMIT_MAX: Int(1, 600),
  RATE_LIMIT_WINDOW_MS: Int(1, 60000),
  BODY_LIMIT_BYTES: Int(1, 262144),
  /** the webhook route's body limit before 413: the upstream batches, a delivery can reach a few MB (CONTRACT.md 12) */
  WEBHOOK_BODY_LIMIT_BYTES: Int(1, 3145728),
  TEMPLATE_SYNC_INTERVAL_MS: Int(0, 3600000),
  /** on SIGTERM, how long sends in flight may finish; unset: the longest a send can take (shutdownGraceMs) */
  SHUTDOWN_GRACE_MS: Type.Optional(Type.Integer({ minimum: 0 })),
  /** how long a process's claim on the records it dispatches lasts unless renewed (every third of it) */
  DISPATCHER_LEASE_MS: Int(300, 15000),
  /** trust X-Forwarded-For (behind a proxy); off, a caller could pick the address its rate limit is keyed by */
  TRUST_PROXY: Type.Boolean({ default: false }),
  /** how long an Idempotency-Key and its stored answer are kept (CONTRACT.md 8) */
  IDEMPOTENCY_TTL_MS: Int(1, 86400000),
  /** a queued send not sent within this ends failed `expired` (CONTRACT.md 9) */
  QUEUE_MAX_AGE_MS: Int(1, 14400000),
  /** the most queued sends per workspace before 503 queue_full (CONTRACT.md 9) */
  ASYNC_QUEUE_LIMIT: Int(1, 1000000),
  /** outgoing webhook retry delays, comma-separated milliseconds (CONTRACT.md 10) */
  WEBHOOK_RETRY_SCHEDULE_MS: Type.String({ pattern: '^\\d+(,\\d+)*$', default: '5000,300000,1800000,7200000,18000000,36000000,36000000' }),
  /** outgoing webhooks may target http and private addresses (tests, the sandbox) */
  WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  /** enables GET /metrics behind this bearer token (CONTRACT.md 11) */
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  /** refuse free-form sends outside the 24 h service window (CONTRACT.md 11) */
  SERVICE_WINDOW_CHECK: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  /** the largest file part a media upload (or a send carrying its file) may have before 413 (CONTRACT.md 13) */
  MEDIA_MAX_BYTES: Int(1, 104857600),
  /** the body limit of POST /api/campaigns.php, JSON or a CSV upload (CONTRACT.md 15) */
  CAMPAIGN_BODY_LIMIT_BYTES: Int(1, 67108864),
  /** where inbound media are mirrored, content-addressed; default DATA_DIR/media (see mediaDir) */
  MEDIA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** on: inbound media are downloaded at receipt and served from MEDIA_DIR; off: fetched from the upstream on each download */
  MEDIA_MIRROR: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  /** where media files live (CONTRACT.md 22): fs, MEDIA_DIR; s3, a bucket every process shares */
  MEDIA_STORE: Type.Union([Type.Literal('fs'), Type.Literal('s3')], { default: 'fs' }),
  /** the bucket of MEDIA_STORE=s3 (required with it) */
  S3_BUCKET: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' })),
  /** what every object's key starts with */
  S3_PREFIX: Type.String({ pattern: '^[^\\s]{0,256}$', default: 'media/' }),
  /** an S3-compatible store (MinIO, R2, Garage); unset: AWS */
  S3_ENDPOINT: Type.Optional(HttpUrl),
  /** unset: AWS_REGION, else us-east-1 */
  S3_REGION: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,64}$' })),
  /** bucket in the path (most S3-compatible stores), not in the host name */
  S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  /** the bucket's credentials; unset: the AWS SDK's usual chain (instance role, shared files) */
  AWS_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  AWS_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  AWS_SESSION_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  /** hold or refuse template sends past the WABA's messaging limit (CONTRACT.md 14) */
  MESSAGING_LIMIT_CHECK: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  /** inbound texts that opt their sender out of marketing templates, comma-separated, matched trimmed and case-insensitive; empty: none */
  OPT_OUT_KEYWORDS: Type.String({ maxLength: 2000, default: 'STOP,UNSUBSCRIBE' }),
  /** how often every number's quality, throughput and messaging tier are read again from the upstream (0: only on webhooks) */
  NUMBER_REFRESH_INTERVAL_MS: Int(0, 3600000),
  /** campaigns pause by themselves on quality signals (CONTRACT.md 21) */
  QUALITY_GUARD: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  /** how many of a campaign's last finished messages the failure rate is taken over (and how many must have finished first) */
  QUALITY_GUARD_WINDOW: Int(1, 200),
  /** the share of that window failed with a quality code above which the campaign pauses */
  QUALITY_GUARD_FAILURE_RATE: Type.Number({ minimum: 0, maximum: 1, default: 0.2 }),
  /** upstream error codes counted as quality failures besides 131049, 131050, 131048, 131031, 130497; comma-separated */
  QUALITY_GUARD_FAILURE_CODES: Type.String({ pattern: '^(\\d{1,9}(,\\d{1,9})*)?$', default: '' }),
  /** how long a guard pause's cause must stay cleared before the campaign resumes by itself */
  QUALITY_GUARD_RECOVERY_MS: Int(0, 3600000),
  /** how often content past a workspace's retention_days is purged (CONTRACT.md 17) */
  RETENTION_SWEEP_MS: Int(1000, 3600000)
})

export type Config = Static<typeof ConfigSchema>

// Their values never appear in an error line or a log.
const SECRET_VARIABLES = new Set(['DATABASE_URL', 'APP_SECRET', 'WEBHOOK_VERIFY_TOKEN', 'ENCRYPTION_KEY', 'ENCRYPTION_KEY_PREVIOUS', 'REDIS_URL', 'METRICS_TOKEN', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])

const EMPTY_MEANS_NONE = new Set(['OPT_OUT_KEYWORDS'])

export class ConfigError extends Error {}

/** Reads and validates the environment; throws a ConfigError whose message is one line naming the variable. */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    // an empty OPT_OUT_KEYWORDS means none, not the default
    if (value !== undefined && (value !== '' || EMPTY_MEANS_NONE.has(key))) raw[key] = value
  }
  for (const [key, value] of Object.entries(raw)) {
    // Convert would quietly truncate "1.5" to 1: an integer variable must be written as one.
    if (isBooleanSetting(key) && !/^(true|false|1|0)$/.test(String(value))) throw new ConfigError(`invalid ${key} (got ${JSON.stringify(value)}): expected true or false`)
    if (isIntegerSetting(key) && !/^\d+$/.test(String(value))) throw new ConfigError(`invalid ${key} (got ${JSON.stringify(value)}): expected a whole number`)
  }
  const config = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw))
  const [error] = Value.Errors(ConfigSchema, config)
  if (error) {
    const name = error.path.replace(/^\//, '') || 'configuration'
    const shown = raw[name] === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(raw[name])})`
    throw new ConfigError(`invalid ${name}${shown}: ${error.message}`)
  }
  const valid = config as Config
  if (valid.MEDIA_STORE === 's3' && valid.S3_BUCKET === undefined) throw new ConfigError('invalid S3_BUCKET: required with MEDIA_STORE=s3')
  return valid
}

const typeOf = (key: string) => (ConfigSchema.properties as Record<string, { type?: string }>)[key]?.type
const isIntegerSetting = (key: string) => typeOf(key) === 'integer'
const isBooleanSetting = (key: string) => typeOf(key) === 'boolean'

/** The base URL the upstream calls back: PUBLIC_URL, or where the server listens. */
export function publicUrl (config: Config): string {
  return (config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '')
}

export function isEmbedded (config: Config): boolean {
  return config.DATABASE_URL === undefined
}

/**
 * How long a stopping process lets its sends in flight finish (CONTRACT.md 12): SHUTDOWN_GRACE_MS,
 * or by default the longest a send can take, its deadline and then one upstream call begun just
 * before it, so that nothing it was dispatching has to be marked interrupted.
 */
export function shutdownGraceMs (config: Pick<Config, 'SHUTDOWN_GRACE_MS' | 'DISPATCH_DEADLINE_MS' | 'UPSTREAM_TIMEOUT_MS'>): number {
  return config.SHUTDOWN_GRACE_MS ?? config.DISPATCH_DEADLINE_MS + config.UPSTREAM_TIMEOUT_MS
}

/** WEBHOOK_RETRY_SCHEDULE_MS as the list of delays it names. */
export function retrySchedule (config: Config): number[] {
  return config.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number)
}

/** MEDIA_DIR, or DATA_DIR/media. */
export function mediaDir (config: Config): string {
  return config.MEDIA_DIR ?? join(config.DATA_DIR, 'media')
}

/** The database pool of a server process, or of one CLI call (at most 2 connections, no listener: CONTRACT.md 22). */
export function poolOf (config: Config, holder: 'server' | 'cli'): PoolOptions {
  return { mode: config.DATABASE_POOL_MODE, max: holder === 'cli' ? Math.min(2, config.DATABASE_POOL_MAX) : config.DATABASE_POOL_MAX, listens: holder === 'server' }
}
