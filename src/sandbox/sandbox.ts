import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig, publicUrl } from '../config.js'
import { connectWorkspace } from '../connections/connect.js'
import { generatePassword, hashPassword, verifyPassword } from '../crypto/password.js'
import { createUser } from '../dashboard/accounts.js'
import { addEndpoint } from '../events/endpoints.js'
import { addRelay } from '../relay/targets.js'
import type { Runtime } from '../runtime.js'
import { defaultAccount, MAGIC_RECIPIENTS, startEmulator } from './emulator/index.js'
import { readSandboxState, writeSandboxState, type SandboxState } from './sandbox-state.js'
import { printBanner } from './banner.js'
import { campaignLine, demoCampaign } from './demo-campaign.js'
import { conversationLine, demoConversation } from './demo-conversation.js'
import { demoMedia, mediaLine } from './demo-media.js'
import { startDemoReceiver } from './demo-receiver.js'

/**
 * `npm run sandbox` once its database is opening (main.ts): the gateway on the embedded database, with
 * the built-in emulator as its upstream and a demo workspace (growth plan) connected through the real
 * registration handshake.
 */
export async function runSandbox (env: Record<string, string | undefined>, runtime: Promise<Runtime>): Promise<void> {
  // a send by media id must name a file the emulator holds, as upstream
  const emulator = await startEmulator({ port: Number(env.EMULATOR_PORT ?? 0), strictMediaIds: true })
  const config = loadConfig({ ...env, GRAPH_API_URL: emulator.url, APP_SECRET: emulator.appSecret, DATABASE_URL: undefined })
  // each route's schemas compile at its first request: most are never called in a sandbox
  const app = await buildApp({ config, runtime, lazySchemas: true })
  await app.listen({ port: config.PORT, host: config.HOST })

  const saved = readSandboxState(config.DATA_DIR)
  const workspaceState = await demoWorkspace(app, saved)
  const { workspaceId } = workspaceState
  const account = defaultAccount()
  // side by side: the user's password hash (scrypt, on libuv's threads), the emulator's handshake, the receiver
  const [user, connection, { receiver, endpoint, relay }] = await Promise.all([
    demoUser(app, workspaceId, saved),
    connectWorkspace(app.connectDeps, { workspaceId, wabaId: account.wabaId, accessToken: account.accessToken }),
    startDemoReceiver(saved?.receiverPort, config.APP_SECRET).then(async receiver => ({ receiver, endpoint: await demoEndpoint(app, workspaceId, saved, receiver), relay: await demoRelay(app, workspaceId, receiver.relayUrl) }))
  ])
  if (!connection.webhook_registered) throw new Error(`webhook registration failed: ${connection.webhook_error}`)
  const state = { ...workspaceState, ...user }
  writeSandboxState(config.DATA_DIR, { ...state, ...endpoint, receiverPort: receiver.port })

  // before the banner: a Ctrl-C as soon as it shows closes the gateway as any later one does
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(() => emulator.close()).then(() => receiver.close()).then(() => process.exit(0), () => process.exit(1))
    })
  }
  printBanner({
    baseUrl: publicUrl(config),
    emulatorUrl: emulator.url,
    workspaceId: state.workspaceId,
    secret: state.apiKeySecret!,
    login: { email: state.dashboardEmail, password: state.dashboardPassword },
    connection,
    magic: MAGIC_RECIPIENTS,
    dataDir: config.DATA_DIR,
    receiverUrl: receiver.url,
    relay: { id: relay, url: receiver.relayUrl }
  })
  // after the banner, so that it does not hold the start: its line follows
  demoMedia(app, emulator, connection.phone_numbers[0].phone_number_id, state.apiKeySecret!)
    .then(media => { console.log(mediaLine(media)) }, (error: unknown) => { console.log(`[media] the media demo failed: ${(error as Error).message}`) })
  demoConversation(app, emulator, connection.phone_numbers[0].phone_number_id, state.apiKeySecret!)
    .then(demo => { console.log(conversationLine(demo)) }, (error: unknown) => { console.log(`[conversation] the conversation demo failed: ${(error as Error).message}`) })
  demoCampaign(app, state.workspaceId, state.apiKeySecret!)
    .then(id => { console.log(campaignLine(id)) }, (error: unknown) => { console.log(`[campaign] the demo campaign failed: ${(error as Error).message}`) })
}

/** The workspace and key of an earlier start when they still exist, else new ones. */
async function demoWorkspace (app: FastifyInstance, saved: SandboxState | undefined): Promise<SandboxState> {
  const workspace = (saved && await app.workspaces.get(saved.workspaceId)) || await app.workspaces.create('Sandbox demo', 'growth')
  if (workspace.plan !== 'growth' && workspace.plan !== 'scale') await app.workspaces.setPlan(workspace.id, 'growth')
  const stillValid = saved?.apiKeySecret && (await app.keys.verify(saved.apiKeySecret))?.workspaceId === workspace.id
  const apiKeySecret = stillValid ? saved.apiKeySecret : (await app.keys.create(workspace.id, 'sandbox')).secret
  return { workspaceId: workspace.id, apiKeySecret }
}

// what a demo receiver's URL looks like (startDemoReceiver): endpoints of earlier starts, never one of yours
const DEMO_RECEIVER_URL = /^http:\/\/127\.0\.0\.1:\d+\/events$/

/**
 * Every event of the demo workspace goes to the demo receiver through one endpoint, reused by every
 * start while the receiver gets its port back; otherwise replaced. Demo endpoints of earlier starts
 * are removed, so no dead one piles up retries.
 */
async function demoEndpoint (app: FastifyInstance, workspaceId: string, saved: SandboxState | undefined, receiver: Awaited<ReturnType<typeof startDemoReceiver>>): Promise<{ webhookEndpointId: string, webhookSecret: string }> {
  const endpoints = await app.webhooks.endpoints(workspaceId)
  const reusable = endpoints.find(endpoint => endpoint.id === saved?.webhookEndpointId && endpoint.url === receiver.url)
  let kept = reusable && saved?.webhookSecret ? { webhookEndpointId: reusable.id, webhookSecret: saved.webhookSecret } : undefined
  if (!kept) {
    const { endpoint, secret } = await addEndpoint(app, { workspaceId, url: receiver.url })
    kept = { webhookEndpointId: endpoint.id, webhookSecret: secret }
  }
  for (const endpoint of endpoints) {
    if (endpoint.id !== kept.webhookEndpointId && DEMO_RECEIVER_URL.test(endpoint.url)) await app.webhooks.removeEndpoint(endpoint.id, workspaceId)
  }
  receiver.setSecret(kept.webhookSecret)
  return kept
}

/**
 * Meta's webhook for the demo workspace is relayed to the demo receiver's /relay (CONTRACT.md 18): one
 * relay kept while its URL holds; demo relays of earlier starts are removed.
 */
async function demoRelay (app: FastifyInstance, workspaceId: string, url: string): Promise<string> {
  const relays = await app.relays.targets(workspaceId)
  const kept = relays.find(relay => relay.url === url) ?? (await addRelay(app, { workspaceId, url })).relay
  for (const relay of relays) {
    if (relay.id !== kept.id && /^http:\/\/127\.0\.0\.1:\d+\/relay$/.test(relay.url)) await app.relays.removeTarget(relay.id, workspaceId)
  }
  return kept.id
}

const DEMO_EMAIL = 'demo@outbound.test'

/** The demo dashboard user of an earlier start, its saved password still valid; else one made (or given a new password) now. */
async function demoUser (app: FastifyInstance, workspaceId: string, saved: SandboxState | undefined): Promise<{ dashboardEmail: string, dashboardPassword: string }> {
  const existing = await app.users.byEmail(saved?.dashboardEmail ?? DEMO_EMAIL)
  if (existing?.workspaceId === workspaceId) {
    if (saved?.dashboardPassword && await verifyPassword(saved.dashboardPassword, existing.passwordHash)) {
      return { dashboardEmail: existing.email, dashboardPassword: saved.dashboardPassword }
    }
    // Only the hash of the old password is known: the demo user gets a new one.
    const password = generatePassword()
    await app.users.setPassword(existing.id, await hashPassword(password))
    return { dashboardEmail: existing.email, dashboardPassword: password }
  }
  // The address may belong to the workspace of an earlier sandbox whose state file is gone.
  const { user, password } = await createUser(app, { workspaceId, email: existing ? `demo+${workspaceId}@outbound.test` : DEMO_EMAIL })
  return { dashboardEmail: user.email, dashboardPassword: password }
}
