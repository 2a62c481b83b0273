import type { AddressInfo } from 'node:net'
import { asc, count } from 'drizzle-orm'
import type { Database } from '../db/client.js'
import { users, workspaces } from '../db/schema.js'
import { isEmbedded, type Config } from './config.js'

/** What the database holds that a newcomer must create before the dashboard is any use. */
export interface Beginnings { firstWorkspaceId: string | undefined, users: number }

export async function beginningsOf (db: Database): Promise<Beginnings> {
  const [first] = await db.select({ id: workspaces.id }).from(workspaces).orderBy(asc(workspaces.createdAt)).limit(1)
  const [{ n }] = await db.select({ n: count() }).from(users)
  return { firstWorkspaceId: first?.id, users: Number(n) }
}

/**
 * Where the gateway answers, for a person: PUBLIC_URL when set (without any credentials in it),
 * else the address it listens on (a wildcard host read as this machine).
 */
export function baseUrlOf (config: Config, address: AddressInfo | string | null): string {
  if (config.PUBLIC_URL) {
    const url = new URL(config.PUBLIC_URL)
    url.username = ''
    url.password = ''
    return url.toString().replace(/\/+$/, '')
  }
  const port = typeof address === 'object' && address !== null ? address.port : config.PORT
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST
  return `http://${host}:${port}`
}

/**
 * What `npm start` prints once it listens (stdout, plain text, never a log line): where the
 * dashboard is and, while nobody can sign in yet, the first step — the CLI commands that exist
 * (`outbound workspace create`, `outbound user create`), or the sandbox. Only URLs and a workspace
 * id: no secret, no content.
 */
export function firstContact (config: Config, baseUrl: string, beginnings: Beginnings): string {
  const lines = [
    '',
    `Outbound is running at ${baseUrl}`,
    `  Dashboard       ${baseUrl}/dashboard`,
    `  API reference   ${baseUrl}/docs`
  ]
  if (beginnings.users > 0) return [...lines, ''].join('\n')
  const steps = beginnings.firstWorkspaceId === undefined
    ? ['  npx outbound workspace create --name "My company" --plan growth', '  npx outbound user create --workspace <the id it printed> --email you@example.com']
    : [`  npx outbound user create --workspace ${beginnings.firstWorkspaceId} --email you@example.com`]
  return [
    ...lines,
    '',
    `First step: nobody can sign in yet. ${beginnings.firstWorkspaceId === undefined ? 'Create a workspace and a dashboard user' : 'Create a dashboard user'} with the command line, from this directory` +
      (isEmbedded(config) ? '\n(the embedded database opens in one process at a time: stop this server with Ctrl-C first, then npm start again):' : ':'),
    '',
    ...steps,
    '',
    `Then sign in at ${baseUrl}/dashboard with the password it printed, and connect your WhatsApp number there.`,
    'Just looking? npm run sandbox runs all of it against a built-in WhatsApp emulator, with a demo login.',
    ''
  ].join('\n')
}
