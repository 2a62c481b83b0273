import type { FastifyInstance } from 'fastify'
import { createServer } from 'node:net'
import { buildApp } from '../../src/app.js'
import { connectWorkspace, type ConnectResult } from '../../src/connections/connect.js'
import type { Plan } from '../../db/schema.js'
import { defaultAccount, startEmulator, type Emulator, type EmulatorOptions } from '../../src/sandbox/emulator/index.js'
import { createTestDatabase, type TestDatabase } from './database.js'
import { testConfig } from './config.js'

export interface TestGateway {
  app: FastifyInstance
  /** http://127.0.0.1:PORT, where the gateway listens (the emulator's webhooks come here) */
  url: string
  emulator: Emulator
  database: TestDatabase
  close(): Promise<void>
}

/**
 * A listening gateway on a fresh database, with the emulator as its upstream and APP_SECRET shared
 * with it. Nothing is connected yet: see connectedWorkspace().
 */
export async function startGateway (options: { env?: Record<string, string>, emulator?: EmulatorOptions } = {}): Promise<TestGateway> {
  const emulator = await startEmulator({ statusDelaysMs: { sent: 0, delivered: 0, read: 0 }, ...options.emulator })
  const database = await createTestDatabase()
  const { app, port } = await listenOnAFreePort(async (port) => await buildApp({
    config: testConfig({
      DATABASE_URL: database.url,
      PORT: String(port),
      GRAPH_API_URL: emulator.url,
      APP_SECRET: emulator.appSecret,
      ...options.env
    }),
    logger: false
  }))
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    emulator,
    database,
    async close () {
      await app.close()
      await emulator.close()
      await database.drop()
    }
  }
}

export interface ConnectedWorkspace {
  workspaceId: string
  /** `Authorization` header value with a fresh API key */
  authorization: string
  apiKeyId: string
  connection: ConnectResult
}

/** A workspace on the given plan, connected to the emulator's default WABA, with an API key. */
export async function connectedWorkspace (gateway: TestGateway, plan: Plan = 'growth'): Promise<ConnectedWorkspace> {
  const { app } = gateway
  const workspace = await app.workspaces.create(`test ${plan}`, plan)
  const account = defaultAccount()
  const connection = await connectWorkspace(app.connectDeps, { workspaceId: workspace.id, wabaId: account.wabaId, accessToken: account.accessToken })
  const { key, secret } = await app.keys.create(workspace.id, 'test')
  return { workspaceId: workspace.id, authorization: `Bearer ${secret}`, apiKeyId: key.id, connection }
}

/**
 * Builds an app for a port that was free a moment ago and listens on it. The port is in its config
 * (the public URL), so it is chosen first; when another socket of the busy machine took it in the
 * meantime, the app is closed and built again for another.
 */
async function listenOnAFreePort (build: (port: number) => Promise<FastifyInstance>): Promise<{ app: FastifyInstance, port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const app = await build(port)
    try {
      await app.listen({ port, host: '127.0.0.1' })
      return { app, port }
    } catch (error) {
      await app.close()
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw error
    }
  }
}

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
